package testmodel

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// Confident returns the weights of a model of config c twice, from the
// same random values: in F16 (a target) and quantized to draftType (its
// draft), for the bosses that time speculative decoding on a real
// model's shape and bytes.
//
// Random weights at the usual scales make a model whose next-token
// distributions are nearly flat and chaotic: the draft's quantization
// error moves its choices at random, and a draft would almost never agree
// with its target. A trained model is confident, and robust to
// quantization. These weights imitate both properties. Each layer's
// output projections (Wo, Down) are small, so a layer adds a correction
// to the residual stream instead of replacing it; the output matrix is
// large, so the logits spread with a standard deviation of 10 and a few
// tokens hold most of the probability. The same c and seed give the
// same weights.
// logitStd is the standard deviation of a Confident model's logits: the
// best of 32,000 such logits stands about logitStd/√(2 ln 32000) ≈ 2 above
// the next, so the best token takes a large share of the probability.
const logitStd = 10.0

// correction is the scale of a layer's output projections against the
// residual stream.
const correction = 0.1

func Confident(c unit05.Config, seed uint64, draftType unit01.DType) (target, draft *unit05.Weights, err error) {
	type job struct {
		t, d       *unit05.Matrix
		rows, cols int
		std        float64
	}
	var jobs []job
	add := func(t, d *unit05.Matrix, rows, cols int, std float64) {
		jobs = append(jobs, job{t, d, rows, cols, std})
	}
	target, draft = &unit05.Weights{OutNorm: ones(c.Dim)}, &unit05.Weights{OutNorm: ones(c.Dim)}
	add(&target.Embed, &draft.Embed, c.Vocab, c.Dim, 1)
	add(&target.Output, &draft.Output, c.Vocab, c.Dim, logitStd/math.Sqrt(float64(c.Dim)))
	target.Layers = make([]unit05.Layer, c.Layers)
	draft.Layers = make([]unit05.Layer, c.Layers)
	for l := range c.Layers {
		t, d := &target.Layers[l], &draft.Layers[l]
		for _, x := range []*unit05.Layer{t, d} {
			x.AttnNorm, x.FFNNorm = ones(c.Dim), ones(c.Dim)
		}
		in := 1 / math.Sqrt(float64(c.Dim))
		add(&t.Wq, &d.Wq, c.QDim(), c.Dim, in)
		add(&t.Wk, &d.Wk, c.KVDim(), c.Dim, in)
		add(&t.Wv, &d.Wv, c.KVDim(), c.Dim, in)
		add(&t.Wo, &d.Wo, c.Dim, c.QDim(), correction/math.Sqrt(float64(c.QDim())))
		add(&t.Gate, &d.Gate, c.FFN, c.Dim, in)
		add(&t.Up, &d.Up, c.FFN, c.Dim, in)
		add(&t.Down, &d.Down, c.Dim, c.FFN, correction/math.Sqrt(float64(c.FFN)))
	}
	// Two workers: the matrices are independent, each from its own seed.
	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				*j.t, *j.d, errs[i] = confidentMatrix(seed, uint64(i), j.rows, j.cols, j.std, draftType)
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, nil, e
		}
	}
	return target, draft, nil
}

// confidentMatrix draws a rows×cols matrix of uniform values of standard
// deviation std and returns it in F16 and in draftType.
func confidentMatrix(seed, index uint64, rows, cols int, std float64, draftType unit01.DType) (unit05.Matrix, unit05.Matrix, error) {
	g := rand.New(rand.NewPCG(seed, index))
	a := float32(std * math.Sqrt(3)) // uniform on [−a, a]
	tb, err := unit01.F16.RowBytes(cols)
	if err != nil {
		return nil, nil, err
	}
	db, err := draftType.RowBytes(cols)
	if err != nil {
		return nil, nil, err
	}
	tdata, ddata := make([]byte, rows*tb), make([]byte, rows*db)
	row := make([]float32, cols)
	for r := range rows {
		for i := 0; i < cols; i += 2 {
			u := g.Uint64()
			row[i] = a * (float32(uint32(u)>>8)/(1<<23) - 1)
			if i+1 < cols {
				row[i+1] = a * (float32(uint32(u>>32)>>8)/(1<<23) - 1)
			}
		}
		if err := unit09.QuantizeRow(unit01.F16, tdata[r*tb:(r+1)*tb], row); err != nil {
			return nil, nil, err
		}
		if err := unit09.QuantizeRow(draftType, ddata[r*db:(r+1)*db], row); err != nil {
			return nil, nil, err
		}
	}
	t, err := unit09.NewQMatrix(unit01.F16, rows, cols, tdata)
	if err != nil {
		return nil, nil, err
	}
	d, err := unit09.NewQMatrix(draftType, rows, cols, ddata)
	return t, d, err
}
