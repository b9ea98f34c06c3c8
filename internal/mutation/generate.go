package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/big"
	"strings"
)

// Generate returns every mutant of one Go file, in source order. path is
// the file's repository-relative name, used in reports and identities.
func Generate(path string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &generator{path: path, src: src, tf: fset.File(f.Pos())}
	for _, d := range f.Decls {
		g.fn = "-"
		if fd, ok := d.(*ast.FuncDecl); ok {
			g.fn = funcName(fd)
		}
		g.walk(d)
	}
	numberOccurrences(g.out)
	return g.out, nil
}

type generator struct {
	path  string
	src   []byte
	tf    *token.File
	fn    string     // the function being walked
	stack []ast.Node // the ancestors of the node being visited
	out   []Mutant
}

func (g *generator) walk(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			g.stack = g.stack[:len(g.stack)-1]
			return true
		}
		g.visit(n)
		g.stack = append(g.stack, n)
		return true
	})
}

// The operator swaps, from gremlins' classes.
var (
	arithmetic  = map[token.Token]token.Token{token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL}
	boundary    = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
	negation    = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.LEQ: token.GTR, token.GTR: token.LEQ, token.GEQ: token.LSS}
	bitwise     = map[token.Token]token.Token{token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL}
	logical     = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}
	assignArith = map[token.Token]token.Token{token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.MUL_ASSIGN}
	assignBits  = map[token.Token]token.Token{token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN, token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN}
)

func (g *generator) visit(n ast.Node) {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		if isStringLit(n.X) || isStringLit(n.Y) {
			return // concatenation: "a" - "b" cannot compile
		}
		for _, c := range []struct {
			op    Operator
			swaps map[token.Token]token.Token
		}{{ArithmeticBase, arithmetic}, {ConditionalsBoundary, boundary}, {ConditionalsNegation, negation}, {InvertBitwise, bitwise}, {InvertLogical, logical}} {
			if to, ok := c.swaps[n.Op]; ok {
				g.replaceToken(c.op, n, n.OpPos, n.Op, to.String())
			}
		}
	case *ast.UnaryExpr:
		if n.Op == token.SUB {
			g.replaceToken(InvertNegatives, n, n.OpPos, n.Op, "")
		}
	case *ast.IncDecStmt:
		to := token.DEC
		if n.Tok == token.DEC {
			to = token.INC
		}
		g.replaceToken(IncrementDecrement, n, n.TokPos, n.Tok, to.String())
	case *ast.AssignStmt:
		if to, ok := assignArith[n.Tok]; ok {
			g.replaceToken(InvertAssignments, n, n.TokPos, n.Tok, to.String())
		}
		if to, ok := assignBits[n.Tok]; ok {
			g.replaceToken(InvertBitwiseAssign, n, n.TokPos, n.Tok, to.String())
		}
		if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
			g.replaceToken(RemoveSelfAssignments, n, n.TokPos, n.Tok, "=")
		}
	case *ast.BranchStmt:
		switch n.Tok {
		case token.BREAK:
			g.replaceToken(InvertLoopControl, n, n.TokPos, n.Tok, "continue")
		case token.CONTINUE:
			g.replaceToken(InvertLoopControl, n, n.TokPos, n.Tok, "break")
		}
	case *ast.IfStmt:
		if isGuard(n) {
			// "false && (cond)" rather than "false": the condition may be the
			// only use of a variable declared in the if's init.
			cond := g.text(n.Cond)
			g.add(GuardRemoval, cond, "false", g.off(n.Cond.Pos()), g.off(n.Cond.End()), "false && ("+cond+")")
		}
	case *ast.BasicLit:
		if n.Kind == token.INT && !g.inArrayLength(n) {
			g.integerConstant(n)
		}
	}
}

// replaceToken records the mutant that replaces the operator tok at pos
// (inside node n, whose text the report shows) by repl.
func (g *generator) replaceToken(op Operator, n ast.Node, pos token.Pos, tok token.Token, repl string) {
	start := g.off(pos)
	end := start + len(tok.String())
	orig := g.text(n)
	rel := start - g.off(n.Pos())
	mut := orig[:rel] + repl + orig[rel+len(tok.String()):]
	g.add(op, orig, mut, start, end, repl)
}

// integerConstant records the literal plus one and minus one, shown in the
// smallest expression around it that gives it meaning.
func (g *generator) integerConstant(lit *ast.BasicLit) {
	v, ok := new(big.Int).SetString(strings.ReplaceAll(lit.Value, "_", ""), 0)
	if !ok {
		return
	}
	ctx := g.context(lit)
	orig := g.text(ctx)
	rel := g.off(lit.Pos()) - g.off(ctx.Pos())
	for _, d := range []int64{-1, 1} {
		repl := formatLike(lit.Value, new(big.Int).Add(v, big.NewInt(d)))
		mut := orig[:rel] + repl + orig[rel+len(lit.Value):]
		g.add(IntegerConstant, orig, mut, g.off(lit.Pos()), g.off(lit.End()), repl)
	}
}

// context is the expression right around a literal, when short, so the
// report reads "i + 1 -> i + 2" rather than "1 -> 2".
func (g *generator) context(n ast.Expr) ast.Node {
	for i := len(g.stack) - 1; i >= 0; i-- {
		switch e := g.stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.BinaryExpr, *ast.UnaryExpr, *ast.IndexExpr, *ast.SliceExpr, *ast.CallExpr:
			if len(g.text(e)) <= 60 {
				return e
			}
		}
		break
	}
	return n
}

// inArrayLength reports whether n is (part of) the length of an array
// type, where a changed constant cannot compile or means nothing.
func (g *generator) inArrayLength(n ast.Node) bool {
	for i := len(g.stack) - 1; i >= 0; i-- {
		if at, ok := g.stack[i].(*ast.ArrayType); ok && at.Len != nil && at.Len.Pos() <= n.Pos() && n.End() <= at.Len.End() {
			return true
		}
	}
	return false
}

func (g *generator) add(op Operator, orig, mut string, start, end int, repl string) {
	g.out = append(g.out, Mutant{
		File: g.path, Func: g.fn, Op: op,
		Orig: collapse(orig), Mut: collapse(mut),
		Line:  g.tf.Line(g.tf.Pos(start)),
		Col:   g.tf.Position(g.tf.Pos(start)).Column,
		start: start, end: end, repl: repl,
	})
}

func (g *generator) off(p token.Pos) int { return g.tf.Offset(p) }

func (g *generator) text(n ast.Node) string { return string(g.src[g.off(n.Pos()):g.off(n.End())]) }

// isGuard reports whether an if statement is a guard: its body ends by
// leaving (return, panic, break, continue, goto), so making its condition
// never true removes a check.
func isGuard(n *ast.IfStmt) bool {
	if len(n.Body.List) == 0 {
		return false
	}
	switch last := n.Body.List[len(n.Body.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return last.Tok != token.FALLTHROUGH
	case *ast.ExprStmt:
		call, ok := last.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := call.Fun.(*ast.Ident)
		return ok && id.Name == "panic"
	}
	return false
}

func isStringLit(e ast.Expr) bool {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

// formatLike writes v in the base the literal orig was written in.
func formatLike(orig string, v *big.Int) string {
	lower := strings.ToLower(orig)
	neg := v.Sign() < 0
	abs := new(big.Int).Abs(v)
	var s string
	switch {
	case strings.HasPrefix(lower, "0x"):
		s = "0x" + abs.Text(16)
	case strings.HasPrefix(lower, "0b"):
		s = "0b" + abs.Text(2)
	case strings.HasPrefix(lower, "0o"):
		s = "0o" + abs.Text(8)
	default:
		s = abs.Text(10)
	}
	if neg {
		return "(-" + s + ")"
	}
	return s
}

// funcName is "Forward" for a function, "Model.Forward" for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fmt.Sprintf("?.%s", fd.Name.Name)
}

// numberOccurrences sets Occ: the index of each mutant among those of the
// same function with the same operator and the same text before and after.
func numberOccurrences(ms []Mutant) {
	seen := map[Key]int{}
	for i := range ms {
		k := ms[i].Key()
		ms[i].Occ = seen[k]
		seen[k]++
	}
}

// collapse folds runs of white space, newlines included, into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
