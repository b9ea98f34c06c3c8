package testmodel

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// logitStd is the standard deviation of a Confident model's logits: the
// best of 32,000 such logits stands about logitStd/√(2 ln 32000) ≈ 2 above
// the next, so the best token takes a large share of the probability.
const logitStd = 10.0

// correction is the scale of a layer's output projections against the
// residual stream.
const correction = 0.1

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
// tokens hold most of the probability; and each token i has a favourite
// successor s(i), a fixed permutation of the vocabulary, whose row of the
// output matrix leans towards i's embedding, lifting its logit by about
// favourite standard deviations (less the layers' share of the residual
// stream): a trained model's next token is often far more likely than any
// other. With favourite 4, a TinyLlama-shaped pair's Q4_0 draft agrees
// with its F16 target on about 87% of the drafted tokens; with 8, a model
// follows its chain of favourites almost always, as a model asked to
// rewrite a paragraph it was given repeats it. The same c, seed and
// favourite give the same weights.
func Confident(c unit05.Config, seed uint64, draftType unit01.DType, favourite float64) (target, draft *unit05.Weights, err error) {
	type job struct {
		t, d       *unit05.Matrix
		rows, cols int
		std        float64
		plant      func(r int, row []float32) // adds to row r after it is drawn, if set
	}
	var jobs []job
	add := func(t, d *unit05.Matrix, rows, cols int, std float64) {
		jobs = append(jobs, job{t, d, rows, cols, std, nil})
	}
	target, draft = &unit05.Weights{OutNorm: ones(c.Dim)}, &unit05.Weights{OutNorm: ones(c.Dim)}
	// The embeddings, kept in float32 while the output matrix is drawn:
	// output row s(i) leans towards token i's embedding, which gives token
	// i a favourite successor s(i) (successor).
	embed := make([]float32, c.Vocab*c.Dim)
	g := uniform(seed, 0, 1)
	for r := range c.Vocab {
		g(embed[r*c.Dim : (r+1)*c.Dim])
	}
	jobs = append(jobs, job{&target.Embed, &draft.Embed, c.Vocab, c.Dim, 0, func(r int, row []float32) {
		copy(row, embed[r*c.Dim:(r+1)*c.Dim])
	}})
	lean := float32(favourite * logitStd / float64(c.Dim))
	jobs = append(jobs, job{&target.Output, &draft.Output, c.Vocab, c.Dim, logitStd / math.Sqrt(float64(c.Dim)), func(r int, row []float32) {
		e := embed[predecessor(r, c.Vocab)*c.Dim:]
		for k := range row {
			row[k] += lean * e[k]
		}
	}})
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
				*j.t, *j.d, errs[i] = confidentMatrix(seed, uint64(i), j.rows, j.cols, j.std, j.plant, draftType)
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
// deviation std, adds plant's part to each row (if set), and returns it in
// F16 and in draftType.
func confidentMatrix(seed, index uint64, rows, cols int, std float64, plant func(int, []float32), draftType unit01.DType) (unit05.Matrix, unit05.Matrix, error) {
	draw := uniform(seed, index, std)
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
		draw(row)
		if plant != nil {
			plant(r, row)
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

// uniform returns a function that fills a row with uniform values of
// standard deviation std, from the stream (seed, index).
func uniform(seed, index uint64, std float64) func(row []float32) {
	g := rand.New(rand.NewPCG(seed, index))
	a := float32(std * math.Sqrt(3)) // uniform on [−a, a]
	return func(row []float32) {
		for i := 0; i < len(row); i += 2 {
			u := g.Uint64()
			row[i] = a * (float32(uint32(u)>>8)/(1<<23) - 1)
			if i+1 < len(row) {
				row[i+1] = a * (float32(uint32(u>>32)>>8)/(1<<23) - 1)
			}
		}
	}
}

// successorStep makes token i's favourite successor s(i) = (i·7919 + 1)
// mod vocab: a permutation when vocab is coprime to the prime 7919.
const successorStep = 7919

// predecessor is the token whose favourite successor is j: s⁻¹(j).
func predecessor(j, vocab int) int {
	// s is a permutation for any vocab that 7919 does not divide; its
	// inverse, by a walk over i, is cheap next to drawing the matrix: it
	// runs once per output row.
	inv := modInverse(successorStep%vocab, vocab)
	return ((j - 1 + vocab) % vocab * inv) % vocab
}

// modInverse is x⁻¹ mod m (x coprime to m), by the extended Euclid.
func modInverse(x, m int) int {
	a, b, u, v := x, m, 1, 0
	for b != 0 {
		q := a / b
		a, b, u, v = b, a-q*b, v, u-q*v
	}
	return (u%m + m) % m
}
