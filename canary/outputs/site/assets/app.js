/* canary status page: renders the JSON data block with ECharts.
 *
 * Rules this file keeps (tests/canary/test_site_*.py check them from the outside):
 * - every piece of data, upstream text above all (provider tags, reasons, evidence), reaches the
 *   DOM as text (textContent, attribute values, chart text drawn on canvas), never as HTML;
 *   chart tooltips are DOM nodes built the same way;
 * - no network: the data is in the page, ECharts is a file beside it;
 * - the page's age is computed here, at view time, so a page nobody rebuilt still turns stale.
 */
(function () {
  'use strict';

  var DATA = JSON.parse(document.getElementById('canary-data').textContent);
  var COLOURS = {
    suspended: '#b31d28', would_suspend: '#e36209', failing: '#e36209', floor_held: '#8250df',
    degraded: '#bf8700', healthy: '#1a7f37', excluded: '#424a53', unknown: '#afb8c1'
  };
  var STATUS_WORDS = {
    would_suspend: 'would suspend', floor_held: 'floor held', excluded: 'excluded by a person'
  };
  var SEVERITY = ['suspended', 'would_suspend', 'failing', 'floor_held', 'degraded', 'excluded', 'unknown', 'healthy'];
  // Strip letters (canary/site/strips.py), worst first.
  var LETTERS = [
    ['S', 'suspended', '#b31d28'], ['W', 'would be suspended', '#e36209'], ['f', 'a round failed', '#fd8c73'],
    ['m', 'maintenance (announced: not counted)', '#6f42c1'],
    ['z', 'no verdict (inconclusive, unreachable)', '#8c959f'], ['c', 'clean', '#4ac26b'],
    ['.', 'no round', '#eef1f4']
  ];
  var CONTRACTS = ['latency', 'refusal', 'structured', 'language'];
  // Optional contracts (canary.yaml optional_contracts:): a column only for a model that runs them,
  // with what each can and cannot see under the table (data.json's contract_notes: collect.py).
  var OPTIONAL = ['tools', 'stop', 'fidelity'];
  var WINDOW_NAMES = { '1': '24 h', '7': '7 d', '30': '30 d' };
  var charts = [];

  // -- small DOM helpers: text only ----------------------------------------------------------

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) { continue; }
      parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return parent;
  }

  function link(href, text) {
    var a = el('a', null, text);
    a.setAttribute('href', href);   // only the site's own relative paths reach here
    return a;
  }

  function chip(status) {
    var c = el('span', 'chip s-' + (COLOURS[status] ? status : 'unknown'), STATUS_WORDS[status] || status);
    return c;
  }

  function fmtTime(iso) {
    if (!iso) { return '-'; }
    var d = new Date(iso);
    if (isNaN(d.getTime())) { return String(iso); }
    return d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  }

  function fmtAge(minutes) {
    if (minutes < 1) { return 'less than a minute'; }
    if (minutes < 90) { return Math.round(minutes) + ' min'; }
    var h = Math.floor(minutes / 60), m = Math.round(minutes - h * 60);
    if (h < 48) { return h + ' h ' + (m < 10 ? '0' : '') + m + ' min'; }
    return Math.round(h / 24) + ' days';
  }

  function num(v, digits) { return v === null || v === undefined ? '-' : Number(v).toFixed(digits); }

  function switcher(options, current, onChange) {
    var box = el('span', 'switch');
    box.setAttribute('role', 'group');
    options.forEach(function (opt) {
      var b = el('button', null, opt[1]);
      b.type = 'button';
      b.setAttribute('aria-pressed', String(opt[0] === current));
      b.addEventListener('click', function () {
        Array.prototype.forEach.call(box.children, function (x) { x.setAttribute('aria-pressed', 'false'); });
        b.setAttribute('aria-pressed', 'true');
        onChange(opt[0]);
      });
      box.appendChild(b);
    });
    return box;
  }

  function tip(title, lines) {
    var box = el('div', 'tip');
    add(box, el('b', null, title));
    lines.forEach(function (line) { if (line) { add(box, el('div', null, line)); } });
    return box;
  }

  function newChart(node) {
    var chart = echarts.init(node, null, { renderer: 'canvas' });
    charts.push(chart);
    return chart;
  }

  // -- the header: freshness, links ----------------------------------------------------------

  function freshness() {
    var newest = DATA.newest_round;
    var limit = DATA.stale_after_minutes;
    var stale, text;
    if (!newest) {
      stale = true;
      text = 'No round in the history yet.';
    } else {
      var age = (Date.now() - Date.parse(newest.at)) / 60000;
      stale = !(age <= limit);
      // A round ahead of this device's clock (a skewed clock, or a simulator round on virtual time)
      // says so rather than "less than a minute ago".
      text = 'Newest round ' + fmtTime(newest.at) +
        (age < -1 ? ' (' + fmtAge(-age) + ' ahead of this device\'s clock)' : ' (' + fmtAge(Math.max(age, 0)) + ' ago)') +
        (newest.mode ? ', ' + newest.mode + ' mode' : '') + (newest.complete ? '' : ', incomplete');
    }
    document.getElementById('freshness').textContent = text;
    document.documentElement.classList.toggle('stale', stale);
    document.documentElement.setAttribute('data-stale', stale ? '1' : '0');
    var banner = document.getElementById('stale-banner');
    banner.textContent = stale
      ? 'Stale: ' + (newest ? 'the newest round is older than ' + fmtAge(limit) : 'no round recorded') +
        '. Rounds may have stopped (GitHub delays and drops scheduled runs); what this page shows may be out of date.'
      : '';
    document.title = (stale ? 'STALE · ' : '') + 'canary status';
  }

  function header() {
    var nav = document.getElementById('links');
    var links = DATA.links || {};
    if (links.allure) { add(nav, link(links.allure, 'Allure report (latest round)')); }
    add(nav, link(links.status || 'status.json', 'status.json'),
        link(links.atom || 'decisions.atom', 'decisions (Atom)'), link('#badges', 'badges'));
  }

  // -- one model -----------------------------------------------------------------------------

  // Cards go into the document before anything is drawn in them: ECharts sizes a chart from its
  // element, and an element outside the document has no size.
  function model(m, parent) {
    var section = el('section', 'model');
    section.id = 'model-' + m.model;
    var title = add(el('h2'), el('span', null, m.model));
    var badge = el('img', 'badge');
    badge.setAttribute('src', m.badge);
    badge.setAttribute('alt', 'canary: ' + m.badge_message);
    add(title, badge);
    add(parent, section);
    add(section, title, counts(m), ignoreLine(m));
    if ((m.silences || []).length) { add(section, silencesLine(m)); }
    if ((m.maintenance || []).length) { add(section, maintenanceLine(m)); }
    var state = { selected: pickInitial(m) };
    var views = {};
    endpointTable(m, state, views, section);
    timelineCard(m, section);
    latencyCard(m, state, views, section);
    gridCard(m, section);
    decisionsCard(m, section);
    return section;
  }

  function counts(m) {
    var box = el('div', 'summary');
    var keys = Object.keys(m.counts).sort(function (a, b) { return SEVERITY.indexOf(a) - SEVERITY.indexOf(b); });
    if (!keys.length) { add(box, el('span', 'empty', 'no endpoint in the last 7 days')); }
    keys.forEach(function (k) {
      var c = chip(k);
      c.textContent = m.counts[k] + ' ' + (STATUS_WORDS[k] || k);
      box.appendChild(c);
    });
    return box;
  }

  function ignoreLine(m) {
    var p = el('p', 'ignore');
    add(p, 'provider.ignore now: ', el('code', null, m.provider_ignore.length ? m.provider_ignore.join(', ') : '(none)'));
    var extra = m.would_ignore.filter(function (t) { return m.provider_ignore.indexOf(t) < 0; });
    if (extra.length) { add(p, ' · would add in enforce mode: ', el('code', null, extra.join(', '))); }
    return p;
  }

  // People's silences: notifications and issue updates muted; the judgement above is unchanged.
  function silencesLine(m) {
    var box = el('div', 'silences');
    box.setAttribute('role', 'note');
    add(box, el('strong', null, 'Silenced'), ' (notifications and incident issues muted; judged as always): ');
    m.silences.forEach(function (s, i) {
      if (i) { add(box, ' · '); }
      add(box, el('code', null, s.provider || 'every endpoint'), ' until ' + fmtTime(s.until) + ' by ' + s.author +
          ': ' + s.reason);
    });
    return box;
  }

  // Providers' announced maintenance: a failed round inside a window is not counted (strip letter m).
  function maintenanceLine(m) {
    var box = el('div', 'silences maintenance');
    box.setAttribute('role', 'note');
    add(box, el('strong', null, 'Maintenance windows'), ' (a failed round inside one is not counted): ');
    m.maintenance.forEach(function (w, i) {
      if (i) { add(box, ' · '); }
      add(box, el('code', null, w.provider), ' ' + w.when + (w.open ? ' (now)' : '') + ' by ' + w.author + ': ' + w.reason);
    });
    return box;
  }

  function pickInitial(m) {
    var best = null;
    m.endpoints.forEach(function (e) {
      if (best === null || SEVERITY.indexOf(e.status) < SEVERITY.indexOf(best.status)) { best = e; }
    });
    return best ? best.provider : null;
  }

  // -- the endpoint table ----------------------------------------------------------------------

  function runs(m, contract) {  // any endpoint of the model has a rate of `contract` in any window
    return m.endpoints.some(function (e) {
      return Object.keys(e.rates || {}).some(function (w) { return (e.rates[w] || {})[contract]; });
    });
  }

  function endpointTable(m, state, views, parent) {
    var card = add(parent, el('div', 'card')).lastChild;
    var head = add(el('div', 'card-head'), el('h3', null, 'Endpoints (' + m.endpoints.length + ')'));
    var body = el('tbody');
    var windowDays = '7';
    add(head, switcher([['1', 'pass rates 24 h'], ['7', '7 d'], ['30', '30 d']], windowDays, function (w) {
      windowDays = w; fill();
    }));
    add(card, head, el('p', 'hint', 'Pass rate = passes / (passes + fails) with its 95 % Wilson interval and n; ' +
      'inconclusive and unreachable cases count for neither. TTFT and tokens/s: last 24 h. Click a row to plot it.'));
    var columns = CONTRACTS.concat(OPTIONAL.filter(function (c) { return runs(m, c); }));
    var headRow = add(el('tr'), el('th', null, 'endpoint'), el('th', null, 'status'), el('th', null, 'TTFT p50 / p95'),
      el('th', null, 'tokens/s'), el('th', null, 'billed / listed'));
    columns.forEach(function (c) { headRow.appendChild(el('th', null, c)); });
    headRow.appendChild(el('th', null, 'wire'));
    headRow.appendChild(el('th', null, 'reports 7 d'));
    var table = add(el('table', 'endpoints cards'), add(el('thead'), headRow), body);
    add(card, add(el('div', 'scroll'), table));
    columns.forEach(function (c) {  // what an optional contract can and cannot see
      if ((DATA.contract_notes || {})[c]) { add(card, el('p', 'hint contract-note', DATA.contract_notes[c])); }
    });
    if (!m.endpoints.length) { add(card, el('p', 'empty', 'No endpoint of this model was probed in the last 7 days.')); }

    function fill() {
      body.textContent = '';
      m.endpoints.forEach(function (e) {
        var tr = el('tr', 'endpoint-row' + (e.provider === state.selected ? ' selected' : ''));
        tr.setAttribute('data-endpoint', e.provider);
        var status = add(el('td'), chip(e.status));
        if (e.until) { add(status, el('span', 'until', 'until ' + fmtTime(e.until))); }
        var rates = (e.rates || {})[windowDays] || {};
        add(tr, el('td', null, e.provider), status,
          labelled(el('td', 'num', num(e.latency.p50, 2) + ' / ' + num(e.latency.p95, 2) + ' s'), 'TTFT p50/p95'),
          labelled(el('td', 'num', num(e.latency.tps, 0)), 'tokens/s'),
          labelled(billingCell(e.billing), 'billed / listed'));
        columns.forEach(function (c) { tr.appendChild(labelled(rateCell(rates[c]), c)); });
        tr.appendChild(labelled(wireCell(e.wire, e.production), 'wire'));
        var reports = labelled(el('td', 'num' + (e.reports ? ' warn' : ''), e.reports ? String(e.reports) : '-'),
          'reports 7 d');
        reports.title = "users' reports of replies this endpoint served, last 7 days (a chat backend's records)";
        tr.appendChild(reports);
        // The tier's reasons matter when routing does nothing about the endpoint (degraded, failing).
        // They read as a line under the row, across the whole table: a column of them made the table
        // wider than a laptop's window and each flagged row several lines tall.
        var why = e.state === 'active' ? e.reasons.concat(e.tier_reasons) : e.reasons;
        if (e.leak) {  // the route audit: a backend served it while provider.ignore excluded it
          why = why.concat(['served while excluded: ' + e.leak.leaked + ' sampled replies in ' + e.leak.windows +
            ' window(s) of 7 d (worst ' + num(e.leak.worst * 100, 1) + ' %)' +
            (e.leak.alarm ? ': a backend is not applying provider.ignore' : '')]);
        }
        var rows = [tr];
        if (why.length) {
          tr.classList.add('has-why');
          var line = el('tr', 'why-row' + (e.provider === state.selected ? ' selected' : ''));
          line.setAttribute('data-endpoint', e.provider);
          var cell = labelled(el('td', 'reason wide', why.join(' · ')), 'why');
          cell.colSpan = headRow.children.length;
          rows.push(add(line, cell));
        }
        rows.forEach(function (r) {
          r.addEventListener('click', function () {
            state.selected = e.provider;
            Array.prototype.forEach.call(body.children, function (other) {
              other.classList.toggle('selected', other.getAttribute('data-endpoint') === e.provider);
            });
            if (views.select) { views.select.value = e.provider; views.redraw(); }
          });
          body.appendChild(r);
        });
      });
    }
    fill();
    return card;
  }

  // The four contracts, then the optional ones (tools, stop, fidelity) some endpoint has rates for.
  function modelContracts(m) {
    var seen = CONTRACTS.slice();
    m.endpoints.forEach(function (e) {
      Object.keys(e.rates || {}).forEach(function (w) {
        Object.keys(e.rates[w]).forEach(function (c) { if (seen.indexOf(c) < 0) { seen.push(c); } });
      });
    });
    return CONTRACTS.concat(OPTIONAL.filter(function (c) { return seen.indexOf(c) >= 0; }));
  }

  function labelled(td, label) {
    td.setAttribute('data-label', label);   // shown before the value when the table becomes cards (phones)
    return td;
  }

  // Issue 22's checks of what every reply carries (canary/outputs/site/wire.py): quiet when healthy.
  // Then its production evidence (a chat backend's sampled replies, issue 39), when it has any to read.
  function wireCell(w, production) {
    var td = el('td', 'wire');
    var lines = (w ? w.lines : []).concat(production || []);
    if (!lines.length) { td.textContent = '-'; return td; }
    td.textContent = lines.join(' · ');
    if (w && w.bad) { td.classList.add('bad'); }
    td.title = 'stream integrity, limits, decode speed and host errors against the peers';
    return td;
  }

  // What the endpoint billed (usage.cost) against its listed prices for the same usage, over its
  // evidence window: above 1.10 x each reply fails billing honesty; below 1 a discount or a cache hit.
  function billingCell(b) {
    var td = el('td', 'num billing');
    if (!b || b.ratio === null) { td.textContent = '-'; return td; }
    td.textContent = num(b.ratio, 2) + ' ×';
    if (b.ratio > 1.1) { td.classList.add('bad'); }
    td.title = '$' + num(b.billed, 6) + ' billed / $' + num(b.listed, 6) + ' listed over ' + b.rounds + ' rounds';
    return td;
  }

  function rateCell(r) {
    var td = el('td', 'rate');
    if (!r) { td.textContent = '-'; return td; }
    var passes = r[0], fails = r[1], other = r[2], rate = r[3], low = r[4], high = r[5];
    if (rate === null) { td.textContent = 'no verdict (' + other + ')'; return td; }
    if (high !== null && high < 0.9) { td.classList.add('bad'); } else if (fails > 0) { td.classList.add('warn'); }
    add(td, Math.round(rate * 100) + '% ',
      el('span', 'ci', '[' + Math.round(low * 100) + '–' + Math.round(high * 100) + '] n=' + (passes + fails)));
    td.title = passes + ' pass, ' + fails + ' fail, ' + other + ' without a verdict';
    return td;
  }

  // -- the state timeline --------------------------------------------------------------------

  function timelineCard(m, parent) {
    var card = add(parent, el('div', 'card')).lastChild;
    var head = add(el('div', 'card-head'), el('h3', null, 'State timeline'));
    var node = el('div', 'chart');
    var legend = el('div', 'legend');
    LETTERS.forEach(function (l) {
      var sw = el('i'); sw.style.background = l[2];
      add(legend, add(el('span'), sw, l[1]));
    });
    var which = '7d';
    add(head, switcher([['7d', '7 days (hourly)'], ['30d', '30 days (6-hourly)']], which, function (w) {
      which = w; draw();
    }));
    add(card, head, legend, node);
    var chart = null;
    function draw() {
      if (!m.endpoints.length) { node.textContent = ''; add(node, el('p', 'empty', 'Nothing to draw.')); return; }
      var frame = DATA.strips[which];
      var key = which === '7d' ? '7' : '30';
      var start = Date.parse(frame.start), step = frame.bucket_hours * 3600000;
      var providers = m.endpoints.map(function (e) { return e.provider; });
      var data = [];
      m.endpoints.forEach(function (e, y) {
        var letters = e['strip' + key];
        for (var x = 0; x < letters.length; x++) {
          data.push([x, y, LETTERS.findIndex(function (l) { return l[0] === letters[x]; })]);
        }
      });
      node.style.height = (providers.length * 15 + 60) + 'px';
      if (!chart) { chart = newChart(node); } else { chart.resize(); }
      var labels = [];
      for (var i = 0; i < frame.count; i++) { labels.push(fmtTime(new Date(start + i * step).toISOString())); }
      chart.setOption({
        animation: false,
        grid: { left: 4, right: 8, top: 4, bottom: 28, containLabel: true },
        tooltip: {
          confine: true,
          formatter: function (p) {
            var e = m.endpoints[p.value[1]], x = p.value[0];
            var letter = LETTERS[p.value[2]] || LETTERS[LETTERS.length - 1];
            var d = (e['detail' + key] || {})[String(x)];
            var lines = [fmtTime(new Date(start + x * step).toISOString()) + ' + ' + frame.bucket_hours + ' h', letter[1]];
            if (d) { lines.push(d[0] + ' failed, ' + d[1] + ' clean, ' + d[2] + ' without a verdict'); lines.push(d[3].map(function (i) { return DATA.codes[i]; }).join(' ')); }
            return tip(e.provider, lines);
          }
        },
        xAxis: { type: 'category', data: labels, splitArea: { show: false }, axisTick: { show: false },
                 axisLabel: { hideOverlap: true, formatter: function (v) { return v.slice(5, 10); },
                              // one label per UTC day, at its first bucket
                              interval: function (i) { return (start + i * step) % 86400000 === 0; } } },
        yAxis: { type: 'category', data: providers, inverse: true, axisLabel: { fontSize: 11, interval: 0 } },
        visualMap: { type: 'piecewise', show: false, dimension: 2,
                     pieces: LETTERS.map(function (l, i) { return { value: i, color: l[2] }; }) },
        // Cell borders only where cells are wide enough to keep their colour (not on a phone's 7 days).
        series: [{ type: 'heatmap', data: data, progressive: 0,
                   itemStyle: { borderColor: '#fff', borderWidth: (node.clientWidth - 110) / frame.count >= 4 ? 0.5 : 0 } }]
      }, true);
    }
    draw();
    return card;
  }

  // -- TTFT and tokens/s over time ---------------------------------------------------------

  function latencyCard(m, state, views, parent) {
    var card = add(parent, el('div', 'card')).lastChild;
    var head = add(el('div', 'card-head'), el('h3', null, 'Time to first token and output tokens/s'));
    var select = el('select');
    select.setAttribute('aria-label', 'endpoint');
    m.endpoints.forEach(function (e) {
      var o = el('option', null, e.provider);
      o.value = e.provider;
      select.appendChild(o);
    });
    if (state.selected) { select.value = state.selected; }
    var range = 'hourly';
    var node = el('div', 'chart');
    node.style.height = '300px';
    add(head, select, switcher([['hourly', '7 d hourly'], ['month', '30 d daily'], ['year', 'year daily']], range,
      function (r) { range = r; redraw(); }));
    add(card, head, el('p', 'hint', 'TTFT p50 and p95 of the latency contract (threshold ' +
      DATA.ttft_threshold_s + ' s); output tokens per second (p50) of the refusal contract, right axis.'), node);
    var chart = null;
    function redraw() {
      var e = m.endpoints.filter(function (x) { return x.provider === select.value; })[0];
      if (!e) { node.textContent = ''; add(node, el('p', 'empty', 'Nothing to draw.')); return; }
      state.selected = e.provider;
      var points = series(e, range);
      if (!chart) { chart = newChart(node); }
      chart.setOption({
        animation: false,
        grid: { left: 8, right: 8, top: 30, bottom: 24, containLabel: true },
        legend: { top: 0, data: ['TTFT p50', 'TTFT p95', 'tokens/s'] },
        tooltip: { trigger: 'axis', confine: true, formatter: function (ps) {
          return tip(e.provider + ' · ' + fmtTime(new Date(ps[0].value[0]).toISOString()),
            ps.map(function (p) { return p.seriesName + ': ' + (p.value[1] === null ? '-' : p.value[1]); }));
        } },
        // From the first bucket with a value: a history younger than the range fills the chart
        // instead of a few pixels at its right edge.
        xAxis: { type: 'time', min: firstValue(points), max: lastTime(points) },
        yAxis: [{ type: 'value', name: 's', min: 0 }, { type: 'value', name: 'tok/s', min: 0, splitLine: { show: false } }],
        series: [
          // Symbols too: a lone bucket between empty ones has no line to draw.
          { name: 'TTFT p50', type: 'line', data: points.p50, symbolSize: 5, connectNulls: false, color: '#0969da' },
          { name: 'TTFT p95', type: 'line', data: points.p95, symbolSize: 5, connectNulls: false, color: '#cf222e' },
          { name: 'tokens/s', type: 'line', yAxisIndex: 1, data: points.tps, symbolSize: 5, connectNulls: false,
            color: '#8c959f', lineStyle: { type: 'dashed' } }
        ]
      }, true);
    }
    select.addEventListener('change', redraw);
    views.select = select;
    views.redraw = redraw;
    redraw();
    return card;
  }

  // The end of the last bucket (a bucket's point is drawn at its start).
  function lastTime(points) {
    var t = points.p50;
    return t.length > 1 ? t[t.length - 1][0] + (t[1][0] - t[0][0]) : null;
  }

  // The first bucket with a value, but at least six buckets before the last (one lone point is not
  // put in the middle of an axis ECharts widens around it).
  function firstValue(points) {
    var first = null, t = points.p50;
    ['p50', 'p95', 'tps'].forEach(function (k) {
      var hit = points[k].filter(function (p) { return p[1] !== null; })[0];
      if (hit && (first === null || hit[0] < first)) { first = hit[0]; }
    });
    if (first === null || t.length < 2) { return null; }
    return Math.max(t[0][0], Math.min(first, t[t.length - 1][0] - 6 * (t[1][0] - t[0][0])));
  }

  function series(e, range) {
    var out = { p50: [], p95: [], tps: [] };
    var times = [], source;
    if (range === 'hourly') {
      var start = Date.parse(DATA.hourly.start);
      for (var i = 0; i < DATA.hourly.count; i++) { times.push(start + i * DATA.hourly.step_s * 1000); }
      source = e.hourly;
    } else {
      var days = DATA.daily.days;
      var first = range === 'month' ? Math.max(0, days.length - 30) : 0;
      for (var d = first; d < days.length; d++) { times.push(Date.parse(days[d] + 'T12:00:00Z')); }
      source = { p50: e.daily.p50.slice(first), p95: e.daily.p95.slice(first), tps: e.daily.tps.slice(first) };
    }
    ['p50', 'p95', 'tps'].forEach(function (k) {
      out[k] = times.map(function (t, j) { return [t, source[k][j] === undefined ? null : source[k][j]]; });
    });
    return out;
  }

  // -- provider x language grid --------------------------------------------------------------

  function gridCard(m, parent) {
    var card = add(parent, el('div', 'card')).lastChild;
    add(card, add(el('div', 'card-head'), el('h3', null, 'Language contract: provider × language, last 7 days')),
      el('p', 'hint', 'Colour: pass rate of the language cases (green 100 %, red 0 %); grey: no verdict.'));
    var node = el('div', 'chart');
    add(card, node);
    if (!m.grid.length) { add(node, el('p', 'empty', 'No language case in the last 7 days.')); return card; }
    var providers = m.endpoints.map(function (e) { return e.provider; });
    node.style.height = (providers.length * 15 + 60) + 'px';
    var data = m.grid.map(function (c) {
      var judged = c[2] + c[3];
      return [c[1], c[0], judged ? c[2] / judged : -1, c[2], c[3], c[4]];
    });
    newChart(node).setOption({
      animation: false,
      grid: { left: 4, right: 8, top: 4, bottom: 24, containLabel: true },
      tooltip: { confine: true, formatter: function (p) {
        var v = p.value;
        return tip(providers[v[1]] + ' · ' + m.languages[v[0]],
          [v[3] + ' pass, ' + v[4] + ' fail, ' + v[5] + ' without a verdict']);
      } },
      xAxis: { type: 'category', data: m.languages, position: 'bottom' },
      yAxis: { type: 'category', data: providers, inverse: true, axisLabel: { fontSize: 11, interval: 0 } },
      visualMap: { type: 'piecewise', show: false, dimension: 2, pieces: [
        { min: -1, max: -0.5, color: '#d0d7de' }, { min: 0, max: 0.5, color: '#cf222e' },
        { gt: 0.5, max: 0.9, color: '#fb8f44' }, { gt: 0.9, lt: 1, color: '#d4a72c' }, { value: 1, color: '#2da44e' }] },
      series: [{ type: 'heatmap', data: data, itemStyle: { borderColor: '#fff', borderWidth: 1 } }]
    });
    return card;
  }

  // -- the latest decisions ------------------------------------------------------------------

  function decisionsCard(m, parent) {
    var card = add(parent, el('div', 'card')).lastChild;
    add(card, add(el('div', 'card-head'), el('h3', null, 'Latest decisions')));
    if (!m.decisions.length) { add(card, el('p', 'empty', 'No decision in the last 30 days.')); return card; }
    var body = el('tbody');
    m.decisions.forEach(function (d) {
      var what = add(el('td'), el('span', null, d.action.replace(/_/g, ' ')), el('span', 'until', d.rule));
      var reason = add(el('td', 'reason'), el('div', null, d.reason));
      if (d.evidence && d.evidence.length) {
        var list = el('ul');
        d.evidence.forEach(function (ev) { add(list, el('li', null, ev[0] + ' ' + ev[1] + ': ' + ev[2])); });
        add(reason, add(el('details'), el('summary', null, 'evidence (' + d.evidence.length + ')'), list));
      }
      // Issue 10's evidence card, when decisions carry one.
      if (d.card) { add(reason, el('pre', 'evidence-card', d.card)); }
      reason.classList.add('wide');
      add(body, add(el('tr'), el('td', null, fmtTime(d.at)), el('td', null, d.provider || '(model)'), what,
        labelled(el('td', null, d.until ? fmtTime(d.until) : '-'), 'until'), reason));
    });
    add(card, add(el('div', 'scroll'), add(el('table', 'decisions cards'), add(el('thead'), add(el('tr'),
      el('th', null, 'when'), el('th', null, 'endpoint'), el('th', null, 'decision'), el('th', null, 'until'),
      el('th', null, 'reason and evidence'))), body)));
    return card;
  }

  // -- badges and footer ---------------------------------------------------------------------

  function badges() {
    var section = el('section', 'model');
    section.id = 'badges';
    add(section, add(el('h2'), el('span', null, 'Badges')),
      el('p', 'hint', 'One SVG per model for a README; link it to this page.'));
    var list = el('ul');
    DATA.models.forEach(function (m) {
      var img = el('img', 'badge');
      img.setAttribute('src', m.badge);
      img.setAttribute('alt', 'canary: ' + m.badge_message);
      add(list, add(el('li'), img, ' ', link(m.badge, m.badge), ' — ', el('code', null,
        '![canary](' + m.badge + ')')));
    });
    add(section, list);
    return section;
  }

  function footer() {
    add(document.getElementById('footer'),
      'Generated ' + fmtTime(DATA.generated_at) + ' by canary site from the round history. Charts: Apache ECharts' +
      (DATA.echarts_version ? ' ' + DATA.echarts_version : '') + ' (',
      link('assets/echarts-LICENSE.txt', 'Apache-2.0'), '). Tiers are for display; the rules never read them.');
  }

  // -- go ------------------------------------------------------------------------------------

  header();
  freshness();
  setInterval(freshness, 30000);
  var main = document.getElementById('models');
  if (!DATA.models.length) { add(main, el('p', 'empty', 'No model in the history, the state or canary.yaml yet.')); }
  DATA.models.forEach(function (m) { model(m, main); });
  main.appendChild(badges());
  footer();
  var pending = null;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { charts.forEach(function (c) { c.resize(); }); }, 100);
  });
  document.documentElement.setAttribute('data-ready', '1');
}());
