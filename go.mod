module github.com/llmforge/forge

go 1.25.0
