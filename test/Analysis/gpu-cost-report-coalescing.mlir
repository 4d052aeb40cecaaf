// The uncoalesced-access term of amp-gpu-cost-report, on kernels written by
// hand with the counts worked out below: a warp's 32 lanes are the block's
// first 32 threads; an access costs (distinct 32-byte sectors of the lanes'
// addresses) / (sectors of 32 contiguous elements) times its bytes, and the
// excess is "uncoalesced_bytes".
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json" -o %t/out.mlir
// RUN: FileCheck %s < %t/cost.json
// With a device model the excess is moved like the footprint: the
// transposing kernel (40960 bytes of footprint) is modeled slower than the
// copy (65540).
// RUN: amp-opt %s --amp-gpu-cost-report="device=h200 output=%t/h200.json" -o %t/out.mlir
// RUN: %python -c "import json, sys; e = [x for x in json.load(open(sys.argv[1]))['functions'][0]['entries'] if x['kind'] == 'launch']; print('slower' if e[1]['modeled_us'] > e[0]['modeled_us'] else 'not slower')" %t/h200.json | FileCheck %s --check-prefix=MODEL

// k_copy: lane i reads x[i] (f32: 128 contiguous bytes, 4 sectors, as
// ideal) and the same scale s[0] (one sector, below ideal: not penalised),
// writes y[i]: no excess.
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
// MODEL: slower

module attributes {gpu.container_module} {
  gpu.module @k_copy {
    gpu.func @k(%x: memref<8192xf32>, %s: memref<1xf32>, %y: memref<8192xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<8192xf32>
      %scale = memref.load %s[%c0] : memref<1xf32>
      %m = arith.mulf %v, %scale : f32
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
  func.func @step(%x: memref<8192xf32>, %s: memref<1xf32>, %y: memref<8192xf32>,
                  %a: memref<64x64xf32>, %b: memref<64x64xf32>, %out: memref<64x64xbf16>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @k_copy::@k blocks in (%c32, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<8192xf32>, %s : memref<1xf32>, %y : memref<8192xf32>)
    %t2 = gpu.launch_func async [%t1] @k_transpose::@k blocks in (%c2, %c64, %c1) threads in (%c32, %c1, %c1) args(%a : memref<64x64xf32>, %b : memref<64x64xf32>, %out : memref<64x64xbf16>)
    gpu.wait [%t2]
    return
  }
}
