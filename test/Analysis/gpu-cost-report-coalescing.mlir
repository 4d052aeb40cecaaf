// The uncoalesced-access term of amp-gpu-cost-report, on kernels written by
// hand with the counts worked out below: a warp's 32 lanes are the block's
// first 32 threads; an access costs (distinct 32-byte sectors of the lanes'
// addresses) / (sectors of 32 contiguous elements) times its bytes, and the
// excess is "uncoalesced_bytes".
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json" -o %t/out.mlir
// RUN: FileCheck %s < %t/cost.json
// With a device model the excess is moved like the footprint. The
// transposing kernel on the H200 model: 4096 threads of the 135168 that
// saturate the memory system, (40960 + 237568) B / (4.8e12 B/s * 4096 /
// 135168) + 3 us launch = 4.91488 us (3.28 us without the term).
// RUN: amp-opt %s --amp-gpu-cost-report="device=h200 output=%t/h200.json" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=MODEL < %t/h200.json

// k_copy: lane i reads x[i] (f32: 128 contiguous bytes, 4 sectors, as
// ideal), the same scale s[0] and the same `index` n[0] (8 bytes: one
// sector, below ideal: not penalised), writes y[i]: no excess.
// CHECK:       "kernel": "k_copy::k",
// CHECK-NEXT:  "kind": "launch",
// CHECK-NEXT:  "uncoalesced_bytes": 0
// k_transpose: 64 x 64 elements, thread x along rows, block y a column j.
// a[j, i] is read along a row (coalesced); b[i, j] is read down a column: lanes 256 bytes
// apart, 32 sectors instead of 4, 8 times the bytes, so 4096 * 4 * 7 =
// 114688 extra; out[i, j] (bf16) is written down a column: 32 sectors
// instead of 2, 16 times, 4096 * 2 * 15 = 122880 extra. Total 237568.
// CHECK:       "kernel": "k_transpose::k",
// CHECK-NEXT:  "kind": "launch",
// CHECK-NEXT:  "uncoalesced_bytes": 237568
// k_tile: a 32 x 32 tile through workgroup memory (a tiled transpose):
// x is read along rows and y written along rows (coalesced); the tile's accesses (lanes down a column of the workgroup
// buffer) are not device memory: no bytes, no excess. Footprint: 4096 B
// read, 4096 B written.
// CHECK:       "accessed_bytes_read": 4096,
// CHECK-NEXT:  "accessed_bytes_written": 4096,
// CHECK-NEXT:  "block": [
// CHECK:       "bytes_read": 4096,
// CHECK-NEXT:  "bytes_written": 4096,
// CHECK:       "kernel": "k_tile::k",
// CHECK-NEXT:  "kind": "launch",
// CHECK-NEXT:  "uncoalesced_bytes": 0
// MODEL:      "kernel": "k_transpose::k",
// MODEL-NEXT: "kind": "launch",
// MODEL-NEXT: "modeled_us": 4.9148{{[0-9]*}},

module attributes {gpu.container_module} {
  gpu.module @k_copy {
    gpu.func @k(%x: memref<8192xf32>, %s: memref<1xf32>, %n: memref<1xindex>, %y: memref<8192xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %limit = memref.load %n[%c0] : memref<1xindex>
      %inside = arith.cmpi ult, %i, %limit : index
      %v = memref.load %x[%i] : memref<8192xf32>
      %scale = memref.load %s[%c0] : memref<1xf32>
      %m0 = arith.mulf %v, %scale : f32
      %zero = arith.constant 0.0 : f32
      %m = arith.select %inside, %m0, %zero : f32
      memref.store %m, %y[%i] : memref<8192xf32>
      gpu.return
    }
  }
  gpu.module @k_transpose {
    gpu.func @k(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %out: memref<64x64xbf16>) kernel {
      %c32 = arith.constant 32 : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tid = gpu.thread_id x
      %base = arith.muli %bx, %c32 : index
      %i = arith.addi %base, %tid : index
      %va = memref.load %a[%by, %i] : memref<64x64xf32>
      %vb = memref.load %b[%i, %by] : memref<64x64xf32>
      %sum = arith.addf %va, %vb : f32
      %t = arith.truncf %sum : f32 to bf16
      memref.store %t, %out[%i, %by] : memref<64x64xbf16>
      gpu.return
    }
  }
  gpu.module @k_tile {
    gpu.func @k(%x: memref<32x32xf32>, %y: memref<32x32xf32>)
        workgroup(%tile: memref<32x32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %row = gpu.thread_id y
      %col = gpu.thread_id x
      %v = memref.load %x[%row, %col] : memref<32x32xf32>
      memref.store %v, %tile[%col, %row] : memref<32x32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %tile[%row, %col] : memref<32x32xf32, #gpu.address_space<workgroup>>
      memref.store %w, %y[%row, %col] : memref<32x32xf32>
      gpu.return
    }
  }
  func.func @step(%x: memref<8192xf32>, %s: memref<1xf32>, %n: memref<1xindex>, %y: memref<8192xf32>,
                  %a: memref<64x64xf32>, %b: memref<64x64xf32>, %out: memref<64x64xbf16>,
                  %tx: memref<32x32xf32>, %ty: memref<32x32xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @k_copy::@k blocks in (%c32, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<8192xf32>, %s : memref<1xf32>, %n : memref<1xindex>, %y : memref<8192xf32>)
    %t2 = gpu.launch_func async [%t1] @k_transpose::@k blocks in (%c2, %c64, %c1) threads in (%c32, %c1, %c1) args(%a : memref<64x64xf32>, %b : memref<64x64xf32>, %out : memref<64x64xbf16>)
    %t3 = gpu.launch_func async [%t2] @k_tile::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c32, %c1) args(%tx : memref<32x32xf32>, %ty : memref<32x32xf32>)
    gpu.wait [%t3]
    return
  }
}
