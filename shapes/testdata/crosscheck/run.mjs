// run.mjs validates data graphs with shacl-engine (rdf-ext/shacl-engine, an
// independent SHACL implementation that passes the W3C SHACL Core suite) so
// that crosscheck_test.go can compare its results with package shapes.
//
// Usage: SHACL_ENGINE_DIR=<dir with node_modules> node run.mjs job.json
//
// job.json: {"shapes": [{"path": "...ttl", "base": "..."}],
//            "tbox": {"path": "...ttl", "base": "..."},
//            "cases": [{"name": "...", "data": "...nt", "shapes": [optional, as above]}]}
//
// The shapes are parsed here (N3.js) from the Turtle files package shapes
// embeds; each case's data is N-Triples written by the Go test (so blank
// node labels are the same on both sides). The TBox's rdfs:subClassOf
// triples are added to every data graph: package shapes reads them from
// the TBox when it decides SHACL instances, and SHACL reads them from the
// data graph. They are added to the shapes graph too, because shacl-engine
// resolves subclasses for sh:class and sh:targetClass in the shapes graph
// when it compiles the shapes (lib/resolveClasses.js), not in the data
// graph; the W3C tests, where both graphs are one file, do not tell apart.
//
// Output (stdout): {"engine": "shacl-engine@x.y.z", "cases": {name:
// {"conforms": bool, "engine_conforms": bool, "results": [{"focus",
// "path", "component", "severity", "value"}], "inconsistent": [...]}}},
// terms in N-Triples syntax, paths in the functional form of canonPath in
// crosscheck_test.go; "inconsistent" holds the results set aside (see
// nodeResultHolds), "engine_conforms" the engine's own verdict with them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const dir = process.env.SHACL_ENGINE_DIR
if (!dir) {
  console.error('SHACL_ENGINE_DIR is not set')
  process.exit(2)
}
const mod = (name, file) => import(pathToFileURL(join(dir, 'node_modules', name, file)).href)
const { Validator } = await mod('shacl-engine', 'index.js')
const rdf = (await mod('rdf-ext', 'index.js')).default
const N3 = (await mod('n3', 'lib/index.js')).default ?? (await mod('n3', 'lib/index.js'))
const engineVersion = JSON.parse(readFileSync(join(dir, 'node_modules', 'shacl-engine', 'package.json'), 'utf8')).version

const SH = 'http://www.w3.org/ns/shacl#'
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#'
const SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf'

function parse (path, base, format) {
  const parser = new N3.Parser({ baseIRI: base, format, blankNodePrefix: '' })
  const ds = rdf.dataset()
  for (const q of parser.parse(readFileSync(path, 'utf8'))) {
    ds.add(rdf.quad(q.subject, q.predicate, q.object))
  }
  return ds
}

function nt (t) {
  if (!t) return ''
  switch (t.termType) {
    case 'NamedNode': return `<${t.value}>`
    case 'BlankNode': return `_:${t.value}`
    case 'Literal': {
      const v = JSON.stringify(t.value)
      if (t.language) return `${v}@${t.language}`
      if (t.datatype && t.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') return `${v}^^<${t.datatype.value}>`
      return v
    }
  }
  return t.value
}

function one (ds, s, p) {
  for (const q of ds.match(s, rdf.namedNode(p))) return q.object
  return null
}

function list (ds, head) {
  const out = []
  for (let n = head; n && n.value !== RDF + 'nil'; n = one(ds, n, RDF + 'rest')) {
    out.push(one(ds, n, RDF + 'first'))
  }
  return out
}

// canonPath writes a SHACL property path (an RDF node of the report) in
// the functional form shared with the Go test.
function canonPath (ds, p) {
  if (!p) return ''
  if (p.termType === 'NamedNode') return `<${p.value}>`
  if (one(ds, p, RDF + 'first')) return `seq(${list(ds, p).map(x => canonPath(ds, x)).join(',')})`
  const forms = { inversePath: 'inv', zeroOrMorePath: 'zeroOrMore', oneOrMorePath: 'oneOrMore', zeroOrOnePath: 'zeroOrOne' }
  for (const [k, f] of Object.entries(forms)) {
    const x = one(ds, p, SH + k)
    if (x) return `${f}(${canonPath(ds, x)})`
  }
  const alt = one(ds, p, SH + 'alternativePath')
  if (alt) return `alt(${list(ds, alt).map(x => canonPath(ds, x)).join(',')})`
  return `?(${nt(p)})`
}

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const subclass = [...parse(job.tbox.path, job.tbox.base, 'text/turtle').match(null, rdf.namedNode(SUBCLASS))]
const validators = new Map()
function validatorFor (sources) {
  const key = JSON.stringify(sources)
  if (!validators.has(key)) {
    const shapes = rdf.dataset()
    for (const s of sources) shapes.addAll(parse(s.path, s.base, 'text/turtle'))
    shapes.addAll(subclass)
    validators.set(key, { shapes, validator: new Validator(shapes, { factory: rdf }) })
  }
  return validators.get(key)
}

// A value node fails sh:node S exactly when validating it against S fails
// (SHACL 4.7.1). shacl-engine 1.1.2 breaks this for shapes with
// sh:qualifiedValueShape reached through sh:node: nested, it tests the
// qualified shape on the wrong node (it reports the outer focus node as
// the value) and fails, while validating the same node against the same
// shape directly conforms (testdata/crosscheck/nested-qualified-*.ttl).
// Such self-contradicting sh:node results are set aside as "inconsistent"
// and reported separately, not compared.
async function nodeResultHolds (validator, shapes, data, n, ds) {
  const value = one(ds, n, SH + 'value')
  const source = one(ds, n, SH + 'sourceShape')
  const targets = [...shapes.match(source, rdf.namedNode(SH + 'node'))].map(q => q.object)
  if (!value || targets.length === 0) return true
  for (const s of targets) {
    const direct = await validator.validate({ dataset: data, terms: [value] }, [{ terms: [s] }])
    if (!direct.conforms) return true
  }
  return false
}

const out = { engine: `shacl-engine@${engineVersion}`, cases: {} }
for (const c of job.cases) {
  const start = performance.now()
  const { shapes, validator } = validatorFor(c.shapes ?? job.shapes)
  const data = parse(c.data, undefined, 'application/n-triples')
  data.addAll(subclass)
  const report = await validator.validate({ dataset: data })
  const ds = report.dataset
  const results = []
  const inconsistent = []
  for (const r of ds.match(null, rdf.namedNode(SH + 'result'))) {
    const n = r.object
    const res = {
      focus: nt(one(ds, n, SH + 'focusNode')),
      path: canonPath(ds, one(ds, n, SH + 'resultPath')),
      component: nt(one(ds, n, SH + 'sourceConstraintComponent')),
      severity: nt(one(ds, n, SH + 'resultSeverity')),
      value: nt(one(ds, n, SH + 'value'))
    }
    if (res.component === `<${SH}NodeConstraintComponent>` && !(await nodeResultHolds(validator, shapes, data, n, ds))) {
      inconsistent.push(res)
      continue
    }
    results.push(res)
  }
  out.cases[c.name] = { conforms: results.length === 0, engine_conforms: report.conforms, results, inconsistent, ms: performance.now() - start }
}
process.stdout.write(JSON.stringify(out))
