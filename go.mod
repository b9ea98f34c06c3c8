module github.com/llmforge/forge

go 1.25.0

require golang.org/x/sys v0.44.0

require gonum.org/v1/gonum v0.17.0
