// RUN: amp-opt %s --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels))' | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels))' | FileCheck %s --check-prefix=NO-RSQRTF
// NO-RSQRTF-NOT: rsqrtf

// gpu.module kernels lowered for the host: ids, dims, barriers and shuffles
// become calls to the __amp_emu_* functions the target defines; workgroup
// attributions are views of the block's shared memory at 16-byte aligned
// offsets, dynamic shared memory follows them; erf calls libm, rsqrt is
// 1 / sqrt (libm has no rsqrtf: a call to it failed the link); parameters
// are those of the NVVM lowering (memref descriptors expanded), and kernels
// keep gpu.kernel so that launches verify. Each kernel's static shared bytes
// and whether it synchronizes go to the target in __amp_emu_info_<kernel>.

// CHECK-LABEL: gpu.module @kernels [#amp_emu.target]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK: llvm.func @erff(f32) -> f32
    // CHECK: llvm.func @tiles(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {gpu.kernel}
    // CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
    // CHECK-DAG: %[[SECOND:.*]] = llvm.mlir.constant(16 : i64) : i64
    // CHECK-DAG: %[[DYNAMIC:.*]] = llvm.mlir.constant(32 : i64) : i64
    // CHECK: llvm.call @__amp_emu_shared_memory(%[[ZERO]])
    // CHECK: llvm.call @__amp_emu_shared_memory(%[[SECOND]])
    // CHECK: llvm.call @__amp_emu_shared_memory(%[[DYNAMIC]])
    // CHECK: llvm.call @__amp_emu_thread_id(%{{.*}}) : (i32) -> i64
    // CHECK: llvm.call @__amp_emu_barrier() : () -> ()
    // CHECK: %[[ERF:.*]] = llvm.call @erff(%{{.*}}) : (f32) -> f32
    // CHECK: %[[ROOT:.*]] = llvm.call @sqrtf(%[[ERF]]) : (f32) -> f32
    // CHECK: llvm.fdiv %{{.*}}, %[[ROOT]] : f32
    gpu.func @tiles(%out: memref<4xf32>)
        workgroup(%a: memref<3xf32, #gpu.address_space<workgroup>>,
                  %b: memref<2xi8, #gpu.address_space<workgroup>>) kernel {
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<3xf32, #gpu.address_space<workgroup>>
      %w = memref.load %b[%c0] : memref<2xi8, #gpu.address_space<workgroup>>
      memref.store %w, %dyn[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
      %tid = gpu.thread_id x
      gpu.barrier
      %e = math.erf %v : f32
      %r = math.rsqrt %e : f32
      memref.store %r, %out[%tid] : memref<4xf32>
      gpu.return
    }

    // CHECK: llvm.func @shuffle(%{{.*}}: f32, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {gpu.kernel}
    // CHECK-DAG: %[[DOWN:.*]] = llvm.mlir.constant(1 : i32) : i32
    // CHECK-DAG: %[[WIDTH:.*]] = llvm.mlir.constant(32 : i32) : i32
    // CHECK-DAG: %[[OFFSET:.*]] = llvm.mlir.constant(4 : i32) : i32
    // CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
    // CHECK: %[[PAIR:.*]] = llvm.call @__amp_emu_shuffle(%[[BITS]], %[[OFFSET]], %[[WIDTH]], %[[DOWN]]) : (i32, i32, i32, i32) -> !llvm.struct<(i32, i1)>
    // CHECK: %[[VALUE:.*]] = llvm.extractvalue %[[PAIR]][0]
    // CHECK: llvm.bitcast %[[VALUE]] : i32 to f32
    // CHECK: llvm.call @__amp_emu_lane_id() : () -> i64
    // CHECK: llvm.call @__amp_emu_block_id(%{{.*}}) : (i32) -> i64
    // CHECK: llvm.call @__amp_emu_block_dim(%{{.*}}) : (i32) -> i64
    // CHECK: llvm.call @__amp_emu_grid_dim(%{{.*}}) : (i32) -> i64
    gpu.func @shuffle(%x: f32, %out: memref<?xf32>) kernel {
      %c4 = arith.constant 4 : i32
      %c32 = arith.constant 32 : i32
      %s, %ok = gpu.shuffle down %x, %c4, %c32 : f32
      %lane = gpu.lane_id
      %bid = gpu.block_id y
      %bdim = gpu.block_dim z
      %gdim = gpu.grid_dim x
      %i = arith.addi %lane, %bid : index
      %j = arith.addi %i, %bdim : index
      %k = arith.addi %j, %gdim : index
      memref.store %s, %out[%k] : memref<?xf32>
      gpu.return
    }

    // A kernel that never synchronizes runs its threads as a loop (flags 0).
    // CHECK: llvm.func @plain(%{{.*}}: !llvm.ptr) attributes {gpu.kernel}
    gpu.func @plain(%p: !llvm.ptr) kernel {
      gpu.return
    }
    // CHECK-DAG: llvm.mlir.global internal constant @__amp_emu_info_tiles(dense<[32, 1]> : tensor<2xi64>)
    // CHECK-DAG: llvm.mlir.global internal constant @__amp_emu_info_shuffle(dense<[0, 1]> : tensor<2xi64>)
    // CHECK-DAG: llvm.mlir.global internal constant @__amp_emu_info_plain(dense<0> : tensor<2xi64>)
  }
}
