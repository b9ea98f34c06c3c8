//go:build !amd64 || purego

package bosses

func fmaProbe() (run func(iters int), flopsPerIter float64, isa string) {
	return fmaLoopGo, fmaGoFlops, "scalar Go"
}

func readStream(x []float32) float32 { return readGo(x) }
