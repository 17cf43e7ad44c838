// bench.mjs loads an N-Triples file into an in-memory Oxigraph store and
// times SPARQL queries on it, for the side-by-side benchmark in
// queries/sparql/oxigraph_bench_test.go.
//
// Usage: node bench.mjs <nt-file> < queries.json
//
// stdin: {"runs": 5, "queries": [{"name": "...", "query": "..."}, ...]}
// stdout: one JSON object: {"oxigraph": version, "triples", "load_ms",
// "queries": [{"name", "rows", "ms": [...], "min_ms", "median_ms",
// "mode", "sample"}]}; "sample" holds the rows (lexical forms by variable)
// when there are at most 100 of them.
//
// Oxigraph is found in $MOLGRAPH_OXIGRAPH or $HOME/.cache/molgraph/oxigraph
// (an `npm install --prefix` directory, see package.json next to this file);
// its version must equal the one pinned in package.json. Exit status 3 means
// Oxigraph is not installed there; other errors exit 1.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

function fail(code, msg) {
  process.stderr.write(`bench.mjs: ${msg}\n`);
  process.exit(code);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const pinned = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).dependencies.oxigraph;
const prefix = process.env.MOLGRAPH_OXIGRAPH || path.join(os.homedir(), '.cache', 'molgraph', 'oxigraph');
const pkgDir = path.join(prefix, 'node_modules', 'oxigraph');
if (!fs.existsSync(path.join(pkgDir, 'package.json'))) {
  fail(3, `oxigraph not installed in ${prefix}: run npm install --prefix ${prefix} oxigraph@${pinned}`);
}
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
if (version !== pinned) {
  fail(3, `oxigraph ${version} in ${prefix}, want ${pinned}: run npm install --prefix ${prefix} oxigraph@${pinned}`);
}
const oxigraph = createRequire(path.join(prefix, 'package.json'))('oxigraph');

if (process.argv.length !== 3) fail(1, 'usage: node bench.mjs <nt-file> < queries.json');
const spec = JSON.parse(fs.readFileSync(0, 'utf8'));
const runs = spec.runs > 0 ? spec.runs : 5;

const text = fs.readFileSync(process.argv[2], 'utf8');
const store = new oxigraph.Store();
let t0 = performance.now();
store.load(text, { format: 'application/n-triples' });
const loadMs = performance.now() - t0;

function lexical(term) {
  return term === undefined ? null : term.value;
}

// Two ways to read a result: the default (an array of Maps of JS terms) and
// a serialized SPARQL JSON string (parsed outside the timed part). The
// faster one is reported, so the comparison is the kindest to Oxigraph.
const modes = {
  terms: (q) => {
    const t = performance.now();
    const rows = store.query(q);
    return { ms: performance.now() - t, rows };
  },
  json: (q) => {
    const t = performance.now();
    const s = store.query(q, { results_format: 'application/sparql-results+json' });
    const ms = performance.now() - t;
    const rows = JSON.parse(s).results.bindings.map(
      (b) => new Map(Object.entries(b).map(([k, v]) => [k, { value: v.value }])));
    return { ms, rows };
  },
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const out = [];
for (const { name, query } of spec.queries) {
  let best = null;
  for (const [mode, run] of Object.entries(modes)) {
    let rows;
    rows = run(query).rows; // warm-up
    const ms = [];
    for (let i = 0; i < runs; i++) {
      const r = run(query);
      ms.push(r.ms);
      rows = r.rows;
    }
    const res = { name, mode, rows: rows.length, ms, min_ms: Math.min(...ms), median_ms: median(ms) };
    if (rows.length <= 100) {
      res.sample = rows.map((m) => Object.fromEntries([...m.entries()].map(([k, v]) => [k, lexical(v)])));
    }
    if (best === null || res.median_ms < best.median_ms) best = res;
    if (best.rows !== res.rows) fail(1, `${name}: ${res.rows} rows in mode ${mode}, ${best.rows} in ${best.mode}`);
  }
  out.push(best);
}
process.stdout.write(JSON.stringify({ oxigraph: version, triples: store.size, load_ms: loadMs, queries: out }) + '\n');
