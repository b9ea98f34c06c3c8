module github.com/llmforge/forge

go 1.25.0

require golang.org/x/sys v0.44.0

require (
	github.com/dlclark/regexp2 v1.11.5
	github.com/google/go-cmp v0.7.0
	github.com/stretchr/testify v1.11.1
	github.com/tiktoken-go/tokenizer v0.7.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
