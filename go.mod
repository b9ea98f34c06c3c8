module github.com/llmforge/forge

go 1.25.0

require golang.org/x/sys v0.44.0
