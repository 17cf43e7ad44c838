// molgraph query page: sends the query to /v1/sparql with the API key and
// renders the answer. Every value from the server or the user reaches the
// DOM through textContent, attributes of created elements, or the value of
// form fields: never through innerHTML. Only http(s) IRIs become links.
//
// Pictures: SMILES columns (a variable whose name contains "smiles") and
// molecule IRIs are drawn by the server (/v1/depict, /v1/molecules/{id}/
// image.svg). Those routes need the key, which must not travel in a URL:
// the page fetches each SVG with the Authorization header and shows it
// through a blob: URL in an <img> (an SVG in an <img> runs no script and
// loads nothing), revoked when the results are replaced.
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
  const searchForm = $("search-form"), searchQuery = $("search-query"), searchType = $("search-type");
  const searchFormat = $("search-format"), searchThreshold = $("search-threshold"), searchRun = $("search-run");
  const searchStatus = $("search-status"), searchError = $("search-error"), searchResults = $("search-results");
  const searchMore = $("search-more");
  let inFlight = null, searchInFlight = null;
  // Pictures per results table at most; the rest stay text.
  const maxPictures = 200;
  const moleculeIRI = /\/id\/molecule\/(mol-[a-z2-7]{26})$/;

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

  // Pictures is a set of depictions loading for one view (the SPARQL
  // results or the search grid): at most 3 requests at a time, all
  // aborted and their blob: URLs revoked by reset.
  class Pictures {
    constructor() { this.urls = []; this.queue = []; this.running = 0; this.count = 0; this.ctl = new AbortController(); }
    reset() {
      this.ctl.abort();
      for (const u of this.urls) URL.revokeObjectURL(u);
      this.urls = []; this.queue = []; this.running = 0; this.count = 0;
      this.ctl = new AbortController();
    }
    // add draws path (a /v1 depiction URL) at the start of holder.
    add(path, holder, alt, w, h) {
      if (this.count >= maxPictures) return;
      this.count++;
      this.queue.push({ path, holder, alt, w, h, ctl: this.ctl });
      this.pump();
    }
    pump() {
      while (this.running < 3 && this.queue.length) {
        const job = this.queue.shift();
        this.running++;
        this.load(job).finally(() => {
          if (job.ctl === this.ctl) this.running--;
          this.pump();
        });
      }
    }
    async load(job) {
      const key = keyInput.value.trim();
      try {
        let resp;
        // A full chem class (503) or an empty token bucket (429) says when
        // to come back: up to three tries, at most 10 s apart.
        for (let attempt = 0; ; attempt++) {
          resp = await fetch(job.path, {
            headers: { "Authorization": "Bearer " + key, "Accept": "image/svg+xml" },
            signal: job.ctl.signal, credentials: "omit",
          });
          if ((resp.status !== 503 && resp.status !== 429) || attempt === 2) break;
          const wait = Math.min(10, Math.max(1, parseInt(resp.headers.get("Retry-After") || "1", 10) || 1));
          await new Promise((ok) => setTimeout(ok, wait * 1000));
          if (job.ctl.signal.aborted) return;
        }
        const ctype = (resp.headers.get("Content-Type") || "").split(";")[0].trim();
        if (!resp.ok || ctype !== "image/svg+xml") {
          let why = String(resp.status);
          try { const p = await resp.json(); if (p && p.code) why += " " + p.code; } catch (e) { /* not a problem */ }
          if (job.ctl.signal.aborted) return;
          job.holder.prepend(el("span", "depict-fail", "no picture (" + why + ")"));
          return;
        }
        const blob = new Blob([await resp.arrayBuffer()], { type: "image/svg+xml" });
        if (job.ctl.signal.aborted) return;
        const url = URL.createObjectURL(blob);
        this.urls.push(url);
        const img = el("img", "depiction");
        img.alt = job.alt;
        img.width = job.w;
        img.height = job.h;
        img.src = url;
        job.holder.prepend(img);
      } catch (e) {
        if (e.name !== "AbortError") job.holder.prepend(el("span", "depict-fail", "no picture"));
      }
    }
  }
  const tablePictures = new Pictures(), gridPictures = new Pictures();

  function depictURL(smiles, w, h) {
    return "/v1/depict?smiles=" + encodeURIComponent(smiles) + "&width=" + w + "&height=" + h;
  }
  function imageURL(id, w, h, highlight) {
    let u = "/v1/molecules/" + encodeURIComponent(id) + "/image.svg?width=" + w + "&height=" + h;
    if (highlight) u += "&highlight=" + encodeURIComponent(highlight);
    return u;
  }

  function setStatus(text) { statusLine.textContent = text; }

  function clearOutput() {
    tablePictures.reset();
    errorBox.hidden = true;
    errorBox.replaceChildren();
    results.replaceChildren();
  }

  function elapsed(t0) { return Math.round(performance.now() - t0) + " ms"; }

  // showProblem renders an RFC 9457 problem (or any failed response).
  function showProblem(status, problem, fallback, box) {
    box = box || errorBox;
    const title = (problem && problem.title) || "Request failed";
    box.append(el("div", "title", status ? title + " (" + status + ")" : title));
    if (problem && problem.detail) box.append(el("div", "detail", problem.detail));
    if (problem && Array.isArray(problem.errors) && problem.errors.length) {
      const ul = el("ul");
      for (const fe of problem.errors) {
        ul.append(el("li", "field-error", (fe.field ? fe.field + ": " : "") + (fe.message || "")));
      }
      box.append(ul);
    }
    if (!problem && fallback) box.append(el("div", "detail", fallback));
    if (status === 401) box.append(el("div", "hint", "Check the API key."));
    box.hidden = false;
  }

  function termCell(term, prefixes, name) {
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
          const m = moleculeIRI.exec(term.value);
          if (m) tablePictures.add(imageURL(m[1], 160, 120), td, "depiction of " + m[1], 160, 120);
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
        if (/smiles/i.test(name) && !term["xml:lang"] && term.value.length <= 4096 && /^[!-~]+$/.test(term.value) &&
            (!term.datatype || term.datatype === basePrefixes.xsd + "string")) {
          tablePictures.add(depictURL(term.value, 160, 120), td, term.value, 160, 120);
        }
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
      for (const v of vars) r.append(termCell(row[v], prefixes, v));
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

  // Structure search: GET /v1/molecules/search (spec/API.md), a page of
  // hits at a time, each a card with its depiction (the query's match
  // highlighted for a substructure search) and its score.
  let searchNext = null, searchParams = null, searchShown = 0;

  async function search(more) {
    const key = keyInput.value.trim();
    searchError.hidden = true;
    searchError.replaceChildren();
    if (!more) {
      gridPictures.reset();
      searchResults.replaceChildren();
      searchShown = 0;
      searchNext = null;
      const p = new URLSearchParams();
      p.set("type", searchType.value);
      p.set("query", searchQuery.value.trim());
      p.set("query_format", searchFormat.value);
      if (searchType.value === "similarity") p.set("threshold", searchThreshold.value || "0.7");
      p.set("limit", "60");
      searchParams = p;
    }
    searchMore.hidden = true;
    if (!key) {
      showProblem(0, { title: "No API key", detail: "Enter an API key with the read scope." }, null, searchError);
      keyInput.focus();
      return;
    }
    sessionStorage.setItem(keyStore, key);
    const p = new URLSearchParams(searchParams);
    if (more && searchNext) p.set("cursor", searchNext);
    if (searchInFlight) searchInFlight.abort();
    const ctl = new AbortController();
    searchInFlight = ctl;
    searchRun.disabled = true;
    searchStatus.textContent = "Searching…";
    const t0 = performance.now();
    try {
      const resp = await fetch("/v1/molecules/search?" + p.toString(), {
        headers: { "Authorization": "Bearer " + key, "Accept": "application/json" },
        signal: ctl.signal, credentials: "omit", cache: "no-store",
      });
      const ctype = (resp.headers.get("Content-Type") || "").split(";")[0].trim();
      let body = null;
      if (ctype === "application/json" || ctype === "application/problem+json") {
        try { body = await resp.json(); } catch (e) { body = null; }
      }
      if (!resp.ok || !body || !Array.isArray(body.hits)) {
        showProblem(resp.status, resp.ok ? null : body, resp.statusText || "unexpected answer", searchError);
        searchStatus.textContent = "failed · " + elapsed(t0);
        return;
      }
      const type = p.get("type"), fmt = p.get("query_format");
      const highlight = type === "substructure" && (fmt === "smiles" || fmt === "smarts") ? p.get("query") : "";
      for (const hit of body.hits) {
        const card = el("div", "hit");
        const score = typeof hit.score === "number" ? hit.score.toFixed(3) : "";
        if (type === "similarity") card.append(el("div", "score", "Tanimoto " + score));
        card.append(el("div", "smiles", hit.smiles_canonical || ""));
        card.append(el("div", "id", hit.id || ""));
        card.dataset.id = hit.id || "";
        card.dataset.score = score;
        searchResults.append(card);
        if (hit.id) gridPictures.add(imageURL(hit.id, 200, 150, highlight), card, hit.smiles_canonical || hit.id, 200, 150);
      }
      searchShown += body.hits.length;
      searchNext = body.next_cursor || null;
      searchMore.hidden = !searchNext;
      searchStatus.textContent = searchShown + (searchShown === 1 ? " hit" : " hits") + (searchNext ? " so far" : "") + " · " + elapsed(t0);
    } catch (e) {
      if (e.name === "AbortError") return;
      showProblem(0, null, String(e), searchError);
      searchStatus.textContent = "failed · " + elapsed(t0);
    } finally {
      if (searchInFlight === ctl) {
        searchInFlight = null;
        searchRun.disabled = false;
      }
    }
  }

  searchForm.addEventListener("submit", (ev) => { ev.preventDefault(); search(false); });
  searchMore.addEventListener("click", () => search(true));
  searchType.addEventListener("change", () => { searchThreshold.disabled = searchType.value !== "similarity"; });

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
