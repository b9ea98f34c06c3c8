package unit02

import "github.com/llmforge/forge/unit00"

// simd is the widest vector instruction set the kernels may use
// (unit00.CPUSIMD). Kernels with assembly paths choose by it; the tests lower
// it to run every path this CPU supports. Code without assembly ignores it.
var simd = unit00.CPUSIMD()
