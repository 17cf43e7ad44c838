// molgraph query page: sends the query to /v1/sparql with the API key and
// renders the answer. Every value from the server or the user reaches the
// DOM through textContent, attributes of created elements, or the value of
// form fields: never through innerHTML. Only http(s) IRIs become links.
"use strict";

(function () {
  const keyStore = "molgraph.apiKey";
  const accept = "application/sparql-results+json, text/turtle;q=0.9";
  // Prefixes used for display even when the query does not declare them.
  const basePrefixes = {
    xsd: "http://www.w3.org/2001/XMLSchema#",
    rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  };

  const $ = (id) => document.getElementById(id);
  const form = $("query-form"), keyInput = $("api-key"), queryInput = $("query");
  const runButton = $("run"), statusLine = $("status"), errorBox = $("error"), results = $("results");
  let inFlight = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // prefixesOf reads the PREFIX declarations of a query (for display only).
  function prefixesOf(query) {
    const out = Object.assign({}, basePrefixes);
    const re = /PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>\s]*)>/gi;
    let m;
    while ((m = re.exec(query)) !== null) out[m[1] || ""] = m[2];
    return out;
  }

  // shorten writes an IRI as prefix:local when a declared namespace covers
  // it and the local part is a plain name; else the full IRI.
  function shorten(iri, prefixes) {
    let best = null;
    for (const [p, ns] of Object.entries(prefixes)) {
      if (ns && iri.startsWith(ns) && /^[A-Za-z0-9_][\w.-]*$|^$/.test(iri.slice(ns.length)) &&
          (best === null || ns.length > prefixes[best].length)) best = p;
    }
    return best === null ? iri : best + ":" + iri.slice(prefixes[best].length);
  }

  function setStatus(text) { statusLine.textContent = text; }

  function clearOutput() {
    errorBox.hidden = true;
    errorBox.replaceChildren();
    results.replaceChildren();
  }

  function elapsed(t0) { return Math.round(performance.now() - t0) + " ms"; }

  // showProblem renders an RFC 9457 problem (or any failed response).
  function showProblem(status, problem, fallback) {
    const title = (problem && problem.title) || "Request failed";
    errorBox.append(el("div", "title", status ? title + " (" + status + ")" : title));
    if (problem && problem.detail) errorBox.append(el("div", "detail", problem.detail));
    if (problem && Array.isArray(problem.errors) && problem.errors.length) {
      const ul = el("ul");
      for (const fe of problem.errors) {
        ul.append(el("li", "field-error", (fe.field ? fe.field + ": " : "") + (fe.message || "")));
      }
      errorBox.append(ul);
    }
    if (!problem && fallback) errorBox.append(el("div", "detail", fallback));
    if (status === 401) errorBox.append(el("div", "hint", "Check the API key."));
    errorBox.hidden = false;
  }

  function termCell(term, prefixes) {
    const td = el("td");
    if (!term) {
      td.className = "unbound";
      return td;
    }
    switch (term.type) {
      case "uri": {
        const short = shorten(term.value, prefixes);
        if (/^https?:\/\//i.test(term.value)) {
          const a = el("a", "iri", short);
          a.href = term.value;
          a.title = term.value;
          a.rel = "noreferrer";
          td.append(a);
        } else {
          const s = el("span", "iri", short);
          s.title = term.value;
          td.append(s);
        }
        break;
      }
      case "bnode":
        td.append(el("span", "bnode", "_:" + term.value));
        break;
      default: { // "literal" (and "typed-literal" from old servers)
        td.append(el("span", "v", term.value));
        if (term["xml:lang"]) {
          td.append(el("span", "lang", "@" + term["xml:lang"]));
        } else if (term.datatype && term.datatype !== basePrefixes.xsd + "string") {
          const dt = el("span", "dt", shorten(term.datatype, prefixes));
          dt.title = term.datatype;
          td.append(dt);
        }
      }
    }
    return td;
  }

  function renderSolutions(data, query, t0) {
    if (typeof data.boolean === "boolean") {
      results.append(el("div", "boolean", String(data.boolean)));
      setStatus("ASK · " + elapsed(t0));
      return;
    }
    const vars = (data.head && data.head.vars) || [];
    const rows = (data.results && data.results.bindings) || [];
    const prefixes = prefixesOf(query);
    const table = el("table");
    const tr = el("tr");
    for (const v of vars) tr.append(el("th", null, v));
    const thead = el("thead");
    thead.append(tr);
    table.append(thead);
    const tbody = el("tbody");
    for (const row of rows) {
      const r = el("tr");
      for (const v of vars) r.append(termCell(row[v], prefixes));
      tbody.append(r);
    }
    table.append(tbody);
    results.append(table);
    setStatus(rows.length + (rows.length === 1 ? " row" : " rows") + " · " + elapsed(t0));
  }

  async function run() {
    clearOutput();
    const key = keyInput.value.trim();
    const query = queryInput.value;
    if (!key) {
      showProblem(0, { title: "No API key", detail: "Enter an API key with the read scope." });
      keyInput.focus();
      return;
    }
    sessionStorage.setItem(keyStore, key);
    if (inFlight) inFlight.abort();
    const ctl = new AbortController();
    inFlight = ctl;
    runButton.disabled = true;
    setStatus("Running…");
    const t0 = performance.now();
    try {
      const resp = await fetch("/v1/sparql", {
        method: "POST",
        headers: {
          "Authorization": "Bearer " + key,
          "Content-Type": "application/sparql-query",
          "Accept": accept,
        },
        body: query,
        signal: ctl.signal,
        credentials: "omit",
        cache: "no-store",
      });
      const ctype = (resp.headers.get("Content-Type") || "").split(";")[0].trim();
      if (!resp.ok) {
        let problem = null;
        if (ctype === "application/problem+json" || ctype === "application/json") {
          try { problem = await resp.json(); } catch (e) { problem = null; }
        }
        showProblem(resp.status, problem, resp.statusText);
        setStatus("failed · " + elapsed(t0));
        return;
      }
      if (ctype === "application/sparql-results+json") {
        renderSolutions(await resp.json(), query, t0);
      } else {
        const text = await resp.text();
        results.append(el("pre", "graph", text));
        setStatus((ctype || "text") + ", " + text.length + " characters · " + elapsed(t0));
      }
    } catch (e) {
      if (e.name === "AbortError") return;
      showProblem(0, null, String(e));
      setStatus("failed · " + elapsed(t0));
    } finally {
      if (inFlight === ctl) {
        inFlight = null;
        runButton.disabled = false;
      }
    }
  }

  keyInput.value = sessionStorage.getItem(keyStore) || "";
  keyInput.addEventListener("change", () => sessionStorage.setItem(keyStore, keyInput.value.trim()));
  form.addEventListener("submit", (ev) => { ev.preventDefault(); run(); });
  queryInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      run();
    }
  });
})();
