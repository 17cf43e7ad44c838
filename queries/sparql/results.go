package sparql

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/cayleygraph/quad"
)

// Media types of the result formats.
const (
	MediaJSON = "application/sparql-results+json"
	MediaXML  = "application/sparql-results+xml"
	MediaCSV  = "text/csv"
	MediaTSV  = "text/tab-separated-values"
)

// WriteJSON writes a SELECT or ASK result as SPARQL 1.1 Query Results JSON
// (https://www.w3.org/TR/sparql11-results-json/), streaming the solutions.
func WriteJSON(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	if r.Form == Ask {
		fmt.Fprintf(bw, "{\"head\":{},\"boolean\":%t}\n", r.Boolean)
		return bw.Flush()
	}
	if r.Form != Select {
		return fmt.Errorf("sparql: write json: %w: %s query", ErrUnsupported, r.Form)
	}
	vars, _ := json.Marshal(nonNil(r.Vars))
	fmt.Fprintf(bw, "{\"head\":{\"vars\":%s},\"results\":{\"bindings\":[", vars)
	first := true
	err := r.Solutions(func(s Solution) error {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteString("\n{")
		n := 0
		for i, v := range s {
			if v == nil {
				continue
			}
			if n > 0 {
				bw.WriteByte(',')
			}
			n++
			writeJSONString(bw, r.Vars[i])
			bw.WriteByte(':')
			writeJSONTerm(bw, v)
		}
		bw.WriteByte('}')
		return nil
	})
	if err != nil {
		bw.Flush()
		return err
	}
	bw.WriteString("]}}\n")
	return bw.Flush()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSONString(w *bufio.Writer, s string) {
	b, _ := json.Marshal(s)
	w.Write(b)
}

func writeJSONTerm(w *bufio.Writer, v quad.Value) {
	switch x := v.(type) {
	case quad.IRI:
		w.WriteString(`{"type":"uri","value":`)
		writeJSONString(w, string(x))
	case quad.BNode:
		w.WriteString(`{"type":"bnode","value":`)
		writeJSONString(w, string(x))
	case quad.String:
		w.WriteString(`{"type":"literal","value":`)
		writeJSONString(w, string(x))
	case quad.LangString:
		w.WriteString(`{"type":"literal","value":`)
		writeJSONString(w, string(x.Value))
		w.WriteString(`,"xml:lang":`)
		writeJSONString(w, x.Lang)
	case quad.TypedString:
		w.WriteString(`{"type":"literal","value":`)
		writeJSONString(w, string(x.Value))
		if x.Type != xsdString {
			w.WriteString(`,"datatype":`)
			writeJSONString(w, string(x.Type))
		}
	default:
		w.WriteString(`{"type":"literal","value":`)
		writeJSONString(w, v.String())
	}
	w.WriteByte('}')
}

// WriteXML writes a SELECT or ASK result as SPARQL Query Results XML
// (https://www.w3.org/TR/rdf-sparql-XMLres/), streaming the solutions.
func WriteXML(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0"?>` + "\n" + `<sparql xmlns="http://www.w3.org/2005/sparql-results#">` + "\n<head>")
	if r.Form == Ask {
		fmt.Fprintf(bw, "</head>\n<boolean>%t</boolean>\n</sparql>\n", r.Boolean)
		return bw.Flush()
	}
	if r.Form != Select {
		return fmt.Errorf("sparql: write xml: %w: %s query", ErrUnsupported, r.Form)
	}
	for _, v := range r.Vars {
		bw.WriteString(`<variable name="`)
		xmlEscape(bw, v)
		bw.WriteString(`"/>`)
	}
	bw.WriteString("</head>\n<results>\n")
	err := r.Solutions(func(s Solution) error {
		bw.WriteString("<result>")
		for i, v := range s {
			if v == nil {
				continue
			}
			bw.WriteString(`<binding name="`)
			xmlEscape(bw, r.Vars[i])
			bw.WriteString(`">`)
			switch x := v.(type) {
			case quad.IRI:
				bw.WriteString("<uri>")
				xmlEscape(bw, string(x))
				bw.WriteString("</uri>")
			case quad.BNode:
				bw.WriteString("<bnode>")
				xmlEscape(bw, string(x))
				bw.WriteString("</bnode>")
			case quad.String:
				bw.WriteString("<literal>")
				xmlEscape(bw, string(x))
				bw.WriteString("</literal>")
			case quad.LangString:
				bw.WriteString(`<literal xml:lang="`)
				xmlEscape(bw, x.Lang)
				bw.WriteString(`">`)
				xmlEscape(bw, string(x.Value))
				bw.WriteString("</literal>")
			case quad.TypedString:
				if x.Type == xsdString {
					bw.WriteString("<literal>")
				} else {
					bw.WriteString(`<literal datatype="`)
					xmlEscape(bw, string(x.Type))
					bw.WriteString(`">`)
				}
				xmlEscape(bw, string(x.Value))
				bw.WriteString("</literal>")
			}
			bw.WriteString("</binding>")
		}
		bw.WriteString("</result>\n")
		return nil
	})
	if err != nil {
		bw.Flush()
		return err
	}
	bw.WriteString("</results>\n</sparql>\n")
	return bw.Flush()
}

func xmlEscape(w *bufio.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s))
}

// WriteCSV writes a SELECT result as SPARQL 1.1 CSV
// (https://www.w3.org/TR/sparql11-results-csv-tsv/): IRIs and lexical forms
// only, blank nodes as _:label, CRLF line ends.
func WriteCSV(w io.Writer, r *Result) error {
	if r.Form != Select {
		return fmt.Errorf("sparql: write csv: %w: %s query", ErrUnsupported, r.Form)
	}
	bw := bufio.NewWriter(w)
	for i, v := range r.Vars {
		if i > 0 {
			bw.WriteByte(',')
		}
		csvField(bw, v)
	}
	bw.WriteString("\r\n")
	err := r.Solutions(func(s Solution) error {
		for i, v := range s {
			if i > 0 {
				bw.WriteByte(',')
			}
			switch x := v.(type) {
			case nil:
			case quad.IRI:
				csvField(bw, string(x))
			case quad.BNode:
				csvField(bw, "_:"+string(x))
			case quad.String:
				csvField(bw, string(x))
			case quad.LangString:
				csvField(bw, string(x.Value))
			case quad.TypedString:
				csvField(bw, string(x.Value))
			}
		}
		bw.WriteString("\r\n")
		return nil
	})
	if err != nil {
		bw.Flush()
		return err
	}
	return bw.Flush()
}

func csvField(w *bufio.Writer, s string) {
	if strings.ContainsAny(s, ",\"\r\n") {
		w.WriteByte('"')
		w.WriteString(strings.ReplaceAll(s, `"`, `""`))
		w.WriteByte('"')
		return
	}
	w.WriteString(s)
}

// WriteTSV writes a SELECT result as SPARQL 1.1 TSV: a "?var" header and
// terms in N-Triples syntax.
func WriteTSV(w io.Writer, r *Result) error {
	if r.Form != Select {
		return fmt.Errorf("sparql: write tsv: %w: %s query", ErrUnsupported, r.Form)
	}
	bw := bufio.NewWriter(w)
	for i, v := range r.Vars {
		if i > 0 {
			bw.WriteByte('\t')
		}
		bw.WriteString("?" + v)
	}
	bw.WriteByte('\n')
	err := r.Solutions(func(s Solution) error {
		for i, v := range s {
			if i > 0 {
				bw.WriteByte('\t')
			}
			if v != nil {
				bw.WriteString(ntTerm(v))
			}
		}
		bw.WriteByte('\n')
		return nil
	})
	if err != nil {
		bw.Flush()
		return err
	}
	return bw.Flush()
}

// ntTerm renders a term in N-Triples syntax.
func ntTerm(v quad.Value) string {
	switch x := v.(type) {
	case quad.IRI:
		return "<" + string(x) + ">"
	case quad.BNode:
		return "_:" + string(x)
	case quad.String:
		return ntString(string(x))
	case quad.LangString:
		return ntString(string(x.Value)) + "@" + x.Lang
	case quad.TypedString:
		if x.Type == xsdString {
			return ntString(string(x.Value))
		}
		return ntString(string(x.Value)) + "^^<" + string(x.Type) + ">"
	}
	return v.String()
}

func ntString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
