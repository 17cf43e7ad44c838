package sparql

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// substringProc is a real procedure over the store: its hits are the
// subjects of the triples whose object is a literal containing the query
// string. The blank-node form takes t:query (required) and t:min (minimum
// literal length, optional) and fills t:len (the literal's length) and
// t:text (the literal).
type substringProc struct {
	src   *graph.Store
	calls int
	// block makes each call wait for its context (a search that never
	// ends on its own).
	block bool
}

const tns = "http://t/"

func (p *substringProc) Call(ctx context.Context, c ProcCall, emit func(ProcHit) error) error {
	p.calls++
	if p.block {
		<-ctx.Done()
		return ctx.Err()
	}
	q := c.Input
	minLen := 0
	if q == nil {
		q = c.Args[tns+"query"]
		if v, ok := c.Args[tns+"min"]; ok {
			lex := quad.StringOf(v)
			if ts, ok := v.(quad.TypedString); ok {
				lex = string(ts.Value)
			}
			n, err := strconv.Atoi(lex)
			if err != nil || n < 0 {
				return BadCall(c, "t:min must be a non-negative integer, not %s", quad.StringOf(v))
			}
			minLen = n
		}
	}
	s, ok := q.(quad.String)
	if !ok {
		return BadCall(c, "the query must be a plain string")
	}
	return p.src.Match(ctx, graph.Pattern{Subject: c.Subject}, func(qd quad.Quad) error {
		lit, ok := qd.Object.(quad.String)
		if !ok || !strings.Contains(string(lit), string(s)) || len(lit) < minLen {
			return nil
		}
		h := ProcHit{Subject: qd.Subject}
		for _, o := range c.Outputs {
			switch o {
			case tns + "len":
				h.Outputs = append(h.Outputs, xint(len(lit)))
			case tns + "text":
				h.Outputs = append(h.Outputs, lit)
			default:
				h.Outputs = append(h.Outputs, nil)
			}
		}
		return emit(h)
	})
}

func procStore(t *testing.T) (*graph.Store, *substringProc, Options) {
	st := openStore(t, map[string][]quad.Quad{
		"http://g/1": {
			tr("a", "name", quad.String("benzene")),
			tr("b", "name", quad.String("benzaldehyde")),
			tr("c", "name", quad.String("ethanol")),
			tr("a", "mass", xint(78)),
			tr("b", "mass", xint(106)),
			tr("c", "mass", xint(46)),
			tr("a", "kind", iri("Aromatic")),
			tr("b", "kind", iri("Aromatic")),
		},
	})
	p := &substringProc{src: st}
	return st, p, Options{Procedures: Procedures{tns + "contains": p, tns + "like": p}}
}

func TestProcedureForms(t *testing.T) {
	st, p, opts := procStore(t)
	pre := "PREFIX t: <http://t/> PREFIX ex: <http://example.org/> "
	tests := []struct {
		name, query string
		want        []string
	}{
		{"constant object", `SELECT ?m { ?m t:contains "benz" }`, []string{"m=a>", "m=b>"}},
		{"joined", `SELECT ?m ?w { ?m t:contains "benz" . ?m ex:mass ?w FILTER(?w > 100) }`, []string{"m=b> w=\"106\"^^<http://www.w3.org/2001/XMLSchema#integer>"}},
		{"blank node outputs", `SELECT ?m ?n { ?m t:like [ t:query "en" ; t:len ?n ] }`,
			[]string{"m=a> n=\"7\"^^<http://www.w3.org/2001/XMLSchema#integer>", "m=b> n=\"12\"^^<http://www.w3.org/2001/XMLSchema#integer>"}},
		{"blank node argument", `SELECT ?m { ?m t:like [ t:query "benz" ; t:min 8 ] }`, []string{"m=b>"}},
		{"constant subject", `ASK { ex:c t:contains "than" }`, nil},
		{"optional", `SELECT ?m ?x { ?m ex:mass ?w OPTIONAL { ?m t:like [ t:query "ald" ; t:text ?x ] } }`,
			[]string{"m=a>", "m=b> x=\"benzaldehyde\"", "m=c>"}},
		{"input bound by another pattern", `SELECT ?m { VALUES ?q { "zal" "hano" } ?m t:contains ?q }`, []string{"m=b>", "m=c>"}},
		{"argument bound by the same BGP", `SELECT ?m ?x { ?m ex:kind ex:Aromatic . ?m ex:name ?nm . ?x t:like [ t:query ?nm ; t:min 10 ] }`,
			[]string{"m=b> x=b>"}},
		{"not a procedure without options", `SELECT ?m { ?m ex:name "benzene" }`, []string{"m=a>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.query, "ASK") {
				res, err := Run(context.Background(), st, pre+tc.query, "", opts)
				if err != nil || !res.Boolean {
					t.Fatalf("ASK = %v, %v; want true", res != nil && res.Boolean, err)
				}
				return
			}
			got := selectStrings(t, st, pre+tc.query, opts)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
	if p.calls == 0 {
		t.Fatal("the procedure was never called")
	}
	// Without the procedure registered its predicate is an ordinary IRI
	// (no triple has it).
	got := selectStrings(t, st, pre+`SELECT ?m { ?m t:contains "benz" }`, Options{})
	if len(got) != 0 {
		t.Errorf("unregistered procedure matched %q", got)
	}
}

func TestProcedureErrors(t *testing.T) {
	st, p, opts := procStore(t)
	pre := "PREFIX t: <http://t/> PREFIX ex: <http://example.org/> "
	run := func(query string, o Options) error {
		res, err := Run(context.Background(), st, pre+query, "", o)
		if err != nil {
			return err
		}
		_, err = res.All()
		return err
	}
	for _, q := range []string{
		`SELECT ?m { ?m t:contains 12 }`,
		`SELECT ?m { ?m t:like [ t:query "a" ; t:min "x" ] }`,
		`SELECT ?m { ?m t:contains ?unbound }`,
		`SELECT ?m { ?m t:like [ ?p "a" ] }`,
	} {
		err := run(q, opts)
		var ae *ArgError
		if !errors.Is(err, ErrBadCall) || !errors.As(err, &ae) || ae.Predicate == "" {
			t.Errorf("%s: err = %v, want an *ArgError", q, err)
		}
	}
	// The row cap applies to hits.
	o := opts
	o.MaxRows = 1
	if err := run(`SELECT ?m { ?m t:contains "e" }`, o); !errors.Is(err, ErrRowLimit) {
		t.Errorf("row cap: err = %v, want ErrRowLimit", err)
	}
	// A call that does not end stops at the timeout.
	p.block = true
	o = opts
	o.Timeout = 50 * time.Millisecond
	start := time.Now()
	if err := run(`SELECT ?m { ?m t:contains "e" }`, o); !errors.Is(err, ErrTimeout) {
		t.Errorf("timeout: err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %s", d)
	}
	// The client going away stops it too.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	res, err := Run(ctx, st, pre+`SELECT ?m { ?m t:contains "e" }`, "", opts)
	if err == nil {
		_, err = res.All()
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("abort: err = %v, want context.Canceled", err)
	}
}

func xint(n int) quad.Value {
	return quad.TypedString{Value: quad.String(strconv.Itoa(n)), Type: xsdInteger}
}
