// Kernels with a barrier over workgroup memory, a libm call and shuffles,
// and a host function launching them on device buffers: lowered for the
// emulated device in lower-kernels.mlir and run on it in run-kernels.test.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[i] = erf(in[255 - i]) through workgroup memory.
    gpu.func @reverse_erf(%in: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<256xf32>
      memref.store %v, %tile[%tid]
          : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c255 = arith.constant 255 : index
      %r = arith.subi %c255, %tid : index
      %w = memref.load %tile[%r]
          : memref<256xf32, #gpu.address_space<workgroup>>
      %e = math.erf %w : f32
      memref.store %e, %out[%tid] : memref<256xf32>
      gpu.return
    }
    // out[i] = the sum of in over i's warp (xor butterfly).
    gpu.func @warp_sum(%in: memref<256xf32>, %out: memref<256xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %base = arith.muli %bid, %dim : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<256xf32>
      %c32 = arith.constant 32 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c4 = arith.constant 4 : i32
      %c8 = arith.constant 8 : i32
      %c16 = arith.constant 16 : i32
      %s1, %ok1 = gpu.shuffle xor %v, %c16, %c32 : f32
      %v1 = arith.addf %v, %s1 : f32
      %s2, %ok2 = gpu.shuffle xor %v1, %c8, %c32 : f32
      %v2 = arith.addf %v1, %s2 : f32
      %s3, %ok3 = gpu.shuffle xor %v2, %c4, %c32 : f32
      %v3 = arith.addf %v2, %s3 : f32
      %s4, %ok4 = gpu.shuffle xor %v3, %c2, %c32 : f32
      %v4 = arith.addf %v3, %s4 : f32
      %s5, %ok5 = gpu.shuffle xor %v4, %c1, %c32 : f32
      %v5 = arith.addf %v4, %s5 : f32
      memref.store %v5, %out[%i] : memref<256xf32>
      gpu.return
    }
    // out[i] = the sum of in over the block (gpu.all_reduce, which
    // upstream rewrites into shuffles and workgroup memory).
    gpu.func @block_sum(%in: memref<256xf32>, %out: memref<256xf32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<256xf32>
      %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
      memref.store %sum, %out[%tid] : memref<256xf32>
      gpu.return
    }
  }

  func.func @run(%in: memref<256xf32>, %reversed: memref<256xf32>,
                 %warps: memref<256xf32>, %sums: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@reverse_erf blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1)
        args(%in : memref<256xf32>, %reversed : memref<256xf32>)
    gpu.launch_func @kernels::@warp_sum blocks in (%c2, %c1, %c1)
        threads in (%c128, %c1, %c1)
        args(%in : memref<256xf32>, %warps : memref<256xf32>)
    gpu.launch_func @kernels::@block_sum blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1)
        args(%in : memref<256xf32>, %sums : memref<256xf32>)
    return
  }
}
