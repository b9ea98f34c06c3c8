module github.com/llmforge/forge

go 1.25.0

require golang.org/x/sys v0.44.0

require (
	github.com/dlclark/regexp2 v1.11.5
	github.com/google/go-cmp v0.7.0
	github.com/tiktoken-go/tokenizer v0.7.0
	gonum.org/v1/gonum v0.17.0
)
