package apicheck

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/scanner"
	"go/token"
	"path/filepath"
	"strings"
)

// collector turns the top-level declarations of one package into Decls.
// It rewrites the syntax trees it is given.
type collector struct {
	fset    *token.FileSet
	tparams map[string][]string // generic type name -> its type parameter names
	decls   []Decl
}

// collect returns the Decls of files, in source order.
func collect(fset *token.FileSet, files []*ast.File) []Decl {
	c := &collector{fset: fset, tparams: make(map[string][]string)}
	// Methods may precede their receiver type, even in another file, so
	// record the type parameters first.
	for _, f := range files {
		c.typeParams(f)
	}
	for _, f := range files {
		for _, d := range f.Decls {
			c.decl(d)
		}
	}
	return c.decls
}

// typeParams records the type parameter names of the generic types of f.
func (c *collector) typeParams(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			s := spec.(*ast.TypeSpec)
			if s.TypeParams == nil {
				continue
			}
			var names []string
			for _, field := range s.TypeParams.List {
				for _, id := range field.Names {
					names = append(names, id.Name)
				}
			}
			c.tparams[s.Name.Name] = names
		}
	}
}

func (c *collector) add(id *ast.Ident, name, kind, sig string, exported bool) {
	p := c.fset.Position(id.Pos())
	c.decls = append(c.decls, Decl{
		Name:     name,
		Kind:     kind,
		Sig:      sig,
		Exported: exported,
		Pos:      fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line),
	})
}

func (c *collector) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		c.funcDecl(d)
	case *ast.GenDecl:
		switch d.Tok {
		case token.TYPE:
			for _, s := range d.Specs {
				c.typeSpec(s.(*ast.TypeSpec))
			}
		case token.CONST:
			c.constDecl(d)
		case token.VAR:
			for _, s := range d.Specs {
				c.varSpec(s.(*ast.ValueSpec))
			}
		}
	}
}

func (c *collector) funcDecl(d *ast.FuncDecl) {
	name := d.Name.Name
	if name == "_" || d.Recv == nil && name == "init" {
		return // may be declared many times and cannot be referred to
	}
	if d.Recv == nil || len(d.Recv.List) == 0 {
		normalize(d.Type)
		c.add(d.Name, name, "func", nodeString(d.Type), ast.IsExported(name))
		return
	}
	recv := d.Recv.List[0].Type
	base := c.canonReceiver(recv, d.Type)
	normalize(d.Type)
	sig := "(" + nodeString(recv) + ") " + nodeString(d.Type)
	c.add(d.Name, base+"."+name, "method", sig, ast.IsExported(base) && ast.IsExported(name))
}

// canonReceiver returns the base type name of the receiver type recv. It
// renames the receiver's type parameters, there and in the method's type fn,
// to the names the type declares at the same positions, so that
// func (l *List[E]) and func (l *List[T]) declare the same method.
func (c *collector) canonReceiver(recv ast.Expr, fn *ast.FuncType) string {
	base, args := receiverBase(recv)
	if base == nil {
		return "?" // not valid Go; the Sig still tells what it was
	}
	names := c.tparams[base.Name]
	if len(names) != len(args) {
		return base.Name
	}
	rename := make(map[string]string)
	for i, a := range args {
		if id, ok := a.(*ast.Ident); ok {
			if id.Name != "_" {
				rename[id.Name] = names[i]
			}
			id.Name = names[i]
		}
	}
	// The renaming is simultaneous, so it must run before normalize makes
	// split fields share their type nodes.
	ast.Inspect(fn, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			return false // a qualified name, pkg.T, names no type parameter
		case *ast.Ident:
			if to := rename[x.Name]; to != "" {
				x.Name = to
			}
		}
		return true
	})
	return base.Name
}

// receiverBase returns the base type name of a receiver type and the type
// parameters it lists, or nil if recv is no valid receiver type.
func receiverBase(recv ast.Expr) (*ast.Ident, []ast.Expr) {
	switch x := recv.(type) {
	case *ast.Ident:
		return x, nil
	case *ast.StarExpr:
		return receiverBase(x.X)
	case *ast.ParenExpr:
		return receiverBase(x.X)
	case *ast.IndexExpr:
		base, _ := receiverBase(x.X)
		return base, []ast.Expr{x.Index}
	case *ast.IndexListExpr:
		base, _ := receiverBase(x.X)
		return base, x.Indices
	}
	return nil, nil
}

func (c *collector) typeSpec(s *ast.TypeSpec) {
	if s.Name.Name == "_" {
		return
	}
	normalize(s)
	c.unexportedFields(s)
	sig := nodeString(&ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{s}})
	c.add(s.Name, s.Name.Name, "type", sig, ast.IsExported(s.Name.Name))
}

// unexportedFields takes the named unexported fields out of a struct type
// spec s (already normalized: one field per name) and adds each as a
// declaration of its own, T.name of kind "field". Compare then treats them
// as it treats unexported functions: a stub's unexported field must be in
// the solution (a test in the package may use it), and a solution may add
// fields of its own (a reference's worker pool or scratch) without the stub
// having to declare them. Their order is not compared.
func (c *collector) unexportedFields(s *ast.TypeSpec) {
	st, ok := s.Type.(*ast.StructType)
	if !ok || st.Fields == nil {
		return
	}
	kept := st.Fields.List[:0:0]
	for _, f := range st.Fields.List {
		if len(f.Names) == 1 && !ast.IsExported(f.Names[0].Name) && f.Names[0].Name != "_" {
			id := f.Names[0]
			sig := nodeString(f.Type)
			if f.Tag != nil {
				sig += " " + f.Tag.Value
			}
			c.add(id, s.Name.Name+"."+id.Name, "field", sig, false)
			continue
		}
		kept = append(kept, f)
	}
	st.Fields.List = kept
}

// constDecl adds the constants of d, applying the implicit repetition of the
// previous type and expressions to specs that have neither.
func (c *collector) constDecl(d *ast.GenDecl) {
	var typ ast.Expr
	var values []ast.Expr
	for iota, spec := range d.Specs {
		s := spec.(*ast.ValueSpec)
		if len(s.Values) > 0 {
			typ, values = s.Type, s.Values
		}
		for i, id := range s.Names {
			if id.Name == "_" {
				continue
			}
			var v ast.Expr
			if i < len(values) {
				v = values[i]
			}
			sig := valueSig(token.CONST, id, typ, v)
			if mentionsIota(v) {
				sig += fmt.Sprintf(" [iota=%d]", iota)
			}
			c.add(id, id.Name, "const", sig, ast.IsExported(id.Name))
		}
	}
}

func (c *collector) varSpec(s *ast.ValueSpec) {
	for i, id := range s.Names {
		if id.Name == "_" {
			continue
		}
		var v ast.Expr
		note := ""
		switch {
		case len(s.Values) == len(s.Names):
			v = s.Values[i]
		case len(s.Values) == 1: // var a, b = f()
			v = s.Values[0]
			note = fmt.Sprintf(" [value %d of %d]", i+1, len(s.Names))
		}
		c.add(id, id.Name, "var", valueSig(token.VAR, id, s.Type, v)+note, ast.IsExported(id.Name))
	}
}

// valueSig prints "const name typ = v" or "var name typ = v"; typ and v may be nil.
func valueSig(tok token.Token, name *ast.Ident, typ, v ast.Expr) string {
	s := &ast.ValueSpec{Names: []*ast.Ident{name}, Type: typ}
	if typ != nil {
		normalize(typ)
	}
	if v != nil {
		normalize(v)
		s.Values = []ast.Expr{v}
	}
	return nodeString(&ast.GenDecl{Tok: tok, Specs: []ast.Spec{s}})
}

// mentionsIota reports whether x refers to iota.
func mentionsIota(x ast.Expr) bool {
	found := false
	if x != nil {
		ast.Inspect(x, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
				found = true
			}
			return !found
		})
	}
	return found
}

// normalize rewrites n in place so that equivalent spellings print alike:
// every field and type parameter list holds one name per entry, and function
// types lose their parameter and result names. Function literals are left
// alone: their bodies refer to their parameters by name.
//
// Split fields share their type node; normalizing it twice is harmless.
func normalize(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.FuncType:
			n.TypeParams = splitFields(n.TypeParams, true)
			n.Params = splitFields(n.Params, false)
			n.Results = splitFields(n.Results, false)
		case *ast.StructType:
			n.Fields = splitFields(n.Fields, true)
		case *ast.TypeSpec:
			n.TypeParams = splitFields(n.TypeParams, true)
		}
		return true
	})
}

// splitFields returns fl with one field per name, the names kept only if
// keepNames is set.
func splitFields(fl *ast.FieldList, keepNames bool) *ast.FieldList {
	if fl == nil {
		return nil
	}
	out := &ast.FieldList{Opening: fl.Opening, Closing: fl.Closing}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			out.List = append(out.List, &ast.Field{Type: f.Type, Tag: f.Tag})
			continue
		}
		for _, id := range f.Names {
			g := &ast.Field{Type: f.Type, Tag: f.Tag}
			if keepNames {
				g.Names = []*ast.Ident{id}
			}
			out.List = append(out.List, g)
		}
	}
	return out
}

// nodeString returns the canonical one-line text of a syntax tree node.
func nodeString(n ast.Node) string {
	var b strings.Builder
	// With an empty FileSet the printer sees no positions, so where it
	// breaks lines depends on the tree alone, never on the source layout.
	if err := printer.Fprint(&b, token.NewFileSet(), n); err != nil {
		panic(err) // only nodes the printer accepts are passed, and a Builder never fails
	}
	return oneLine(b.String())
}

// oneLine rejoins the tokens of printed Go source on one line. A line break
// becomes "; " where Go would insert a semicolon and disappears or becomes a
// blank elsewhere; runs of blanks between tokens become one blank; braces
// hug their contents, so that the printer's "struct{ a int }" and
// "struct {\n\ta int\n}" both read struct{a int}. Literals are kept as
// they are.
func oneLine(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, 0)

	var b strings.Builder
	prev := token.ILLEGAL // the previous token written
	end := 0              // offset just past it
	semi := false         // a semicolon was inserted since
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return b.String()
		}
		if tok == token.SEMICOLON && lit == "\n" {
			semi = true
			continue
		}
		off := file.Offset(pos)
		text := lit
		if text == "" {
			text = tok.String()
		}
		if b.Len() > 0 {
			b.WriteString(separator(prev, tok, src[end:off], semi))
		}
		b.WriteString(text)
		prev, end, semi = tok, off+len(text), false
	}
}

// separator returns what to write between the tokens prev and next, given
// the text gap the printer put between them and whether Go inserts a
// semicolon there.
func separator(prev, next token.Token, gap string, semi bool) string {
	switch {
	case semi && next != token.RBRACE && next != token.RPAREN:
		return "; "
	case prev == token.LBRACE || next == token.RBRACE,
		next == token.LBRACE && (prev == token.STRUCT || prev == token.INTERFACE):
		return ""
	case strings.Contains(gap, "\n") && (prev == token.LPAREN || prev == token.LBRACK ||
		next == token.RPAREN || next == token.RBRACK):
		return ""
	case gap == "":
		return ""
	}
	return " "
}
