// The reference solutions are not a module of their own and are never built
// from here: forge swaps their files into the unitNN packages of the parent
// module with `go build -overlay` (see docs/CONTRIBUTING.md and cmd/forge). A
// solutions/unitNN folder alone is an incomplete package (the unit's given*.go
// files stay in unitNN/), so this go.mod keeps `go build ./...`, `go vet ./...`
// and `go test ./...` at the repository root from trying to compile it.
module github.com/llmforge/forge/solutions

go 1.25.0
