// report_page.cc — see report_page.h. The script is plain ES5-level JavaScript in one closure:
// data in, canvas and table out; every handler only redraws.
#include "sim/run/report_page.h"

namespace rindle::sim {

const char kReportStyle[] = R"css(
body{font-family:system-ui,sans-serif;margin:0;padding:0 12px 12px;font-size:13px;color:#222}
header h1{font-size:17px;margin:10px 0 4px}
#summary span{margin-right:14px;color:#444}
#failure{border:2px solid #d22;border-radius:6px;padding:6px 10px;margin:8px 0;background:#fff6f6}
#failure.ok{border-color:#3a3;background:#f4fff4}
#failure h2{font-size:15px;margin:2px 0 6px;color:#b00}
#failure.ok h2{color:#272}
#diff{border-collapse:collapse;margin:4px 0;font-family:ui-monospace,monospace;font-size:12px}
#diff th,#diff td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
#diff td.exp{background:#eaffea}#diff td.act{background:#ffecec}
#message{white-space:pre-wrap;font-size:12px;max-height:14em;overflow:auto;background:#fff;
 border:1px solid #eee;padding:4px}
#jserror{background:#d22;color:#fff;padding:6px;font-weight:bold}
#controls{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;margin:6px 0}
#controls fieldset{border:1px solid #ddd;padding:2px 6px;margin:0}
#controls legend{font-size:11px;color:#666}
#controls label{margin-right:8px;white-space:nowrap;cursor:pointer}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:3px;
 vertical-align:-1px}
#main{display:flex;gap:10px;align-items:flex-start}
#tl-wrap{flex:1 1 auto;min-width:0;border:1px solid #ccc;max-height:62vh;overflow-y:auto;
 position:relative}
#tl{display:block;cursor:grab}
#steps-wrap{flex:0 0 42%;max-width:640px;border:1px solid #ccc}
#steps-scroll{max-height:58vh;overflow:auto;position:relative}
#steps{border-collapse:collapse;width:100%;font-size:12px}
#steps td{padding:1px 4px;border-bottom:1px solid #f0f0f0;white-space:nowrap;overflow:hidden;
 text-overflow:ellipsis;max-width:260px}
#steps tr{cursor:pointer}#steps tr:hover{background:#f3f7ff}
#steps tr.selected{background:#ffe58a}
#steps tr.fail td{color:#b00;font-weight:bold}
#steps tr.lost td.x{color:#c00}
#steps-head{padding:4px;display:flex;gap:6px;align-items:center;border-bottom:1px solid #ddd}
#search{flex:1}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:4px 6px;
 border-radius:4px;font-size:12px;max-width:480px;white-space:pre-wrap;display:none;z-index:9}
#counts{color:#555;margin:2px 0}
)css";

const char kReportBody[] = R"html(<div id="jserror" hidden="hidden"></div>
<script>
window.onerror = function (msg, src, line, col) {
  document.body.setAttribute('data-error', String(msg) + ' (line ' + line + ':' + col + ')');
  var b = document.getElementById('jserror');
  if (b) { b.textContent = 'The report script failed: ' + msg; b.hidden = false; }
};
</script>
<noscript><p>The timeline and the step list need JavaScript; the failure above does not.</p>
</noscript>
<p id="counts"></p>
<div id="controls"></div>
<div id="main">
<div id="tl-wrap"><canvas id="tl" width="800" height="200"></canvas></div>
<div id="steps-wrap"><div id="steps-head"><input id="search" type="search"
 placeholder="filter the steps (text)"/><label><input id="inview" type="checkbox"/>in view
 only</label></div><div id="steps-scroll"><table id="steps"><tbody></tbody></table></div></div>
</div>
<div id="tip"></div>
<p style="color:#666">Wheel: zoom at the pointer. Drag: pan. Click an item or a row: select it
(j / k: next / previous row). Lanes: the authority, then per client its authority channel and
the client. Arrows: messages by kind; dashed with a cross: lost where it died; dotted: a
duplicate copy; dashed with a ring: still in flight at the end. Shaded: fault windows. Red
line: the failing step.</p>
)html";

const char kReportScript[] = R"js(
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('rindle-data').textContent);
  var body = document.body;
  var KIND = {welcome: '#8e44ad', hello: '#1f77b4', snapshot: '#17becf', batch: '#2ca02c',
    progress: '#b5b5b5', push: '#ff7f0e', ack: '#8c564b', connect: '#444', register: '#7f7f7f',
    unregister: '#c49c94', message: '#999'};
  var EXTRA = ['#e377c2', '#bcbd22', '#393b79', '#637939', '#843c39', '#7b4173', '#3182bd'];
  var MARK = {action: '#2255cc', fault: '#e65c00', apply: '#2a9d4a', info: '#888'};
  var GUTTER = 120, LANE_H = 22, TOP = 24;
  var fail = D.failure;
  var endMs = Math.max(1, D.end_ms);
  var state = {v0: 0, v1: endMs, sel: -1, kinds: {}, marks: {}, fates: {}, lanes: '',
    search: '', inview: false, hover: null};

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c];
    });
  }
  function colourOf(kind) {
    if (!KIND[kind]) { KIND[kind] = EXTRA[Object.keys(KIND).length % EXTRA.length]; }
    return KIND[kind];
  }
  function fateOf(m) { return m.d ? 'duplicate' : m.x; }

  // ---- the rows of the step list: every item, by time, step, then recording order ----
  var rows = [];
  D.msgs.forEach(function (m, i) {
    rows.push({t: m.a, s: m.s, o: rows.length, lane: D.lanes[m.f] + ' \u2192 ' + D.lanes[m.t],
      k: m.k, l: m.l, x: m.x + (m.d ? ' (dup)' : '') + (m.x === 'delivered' ? ' @' + m.b : ''),
      ref: {type: 'msg', i: i}});
  });
  D.marks.forEach(function (m, i) {
    rows.push({t: m.a, s: m.s, o: rows.length, lane: D.lanes[m.n], k: m.k, l: m.l, x: '',
      ref: {type: 'mark', i: i}});
  });
  D.spans.forEach(function (m, i) {
    rows.push({t: m.a, s: m.s, o: rows.length, lane: D.lanes[m.n], k: 'window',
      l: m.l + ' until ' + m.b + ' ms', x: '', ref: {type: 'span', i: i}});
  });
  var failRow = -1;
  if (fail) {
    rows.push({t: fail.t, s: fail.step, o: 1e15, lane: '', k: 'FAILURE',
      l: fail.property + ': ' + fail.message.split('\n')[0], x: '', ref: {type: 'fail'}});
  }
  rows.sort(function (p, q) { return p.t - q.t || p.s - q.s || p.o - q.o; });
  rows.forEach(function (r, i) { if (r.ref.type === 'fail') { failRow = i; } });

  // ---- controls ----
  var counts = {kinds: {}, marks: {}, fates: {}};
  function bump(map, key) { map[key] = (map[key] || 0) + 1; }
  D.msgs.forEach(function (m) { bump(counts.kinds, m.k); bump(counts.fates, fateOf(m)); });
  D.marks.forEach(function (m) { bump(counts.marks, m.k); });
  function fieldset(title, map, colours, target) {
    var html = '<fieldset><legend>' + esc(title) + '</legend>';
    Object.keys(map).sort().forEach(function (k) {
      target[k] = true;
      var c = colours ? colours(k) : '#fff';
      html += '<label><input type="checkbox" checked="checked" data-group="' + esc(title) +
        '" data-key="' + esc(k) + '"/><span class="sw" style="background:' + c + '"></span>' +
        esc(k) + ' (' + map[k] + ')</label>';
    });
    return html + '</fieldset>';
  }
  var FATE = {delivered: '#2ca02c', lost: '#d62728', duplicate: '#9467bd', 'in flight': '#999'};
  var controls = document.getElementById('controls');
  controls.innerHTML =
    '<fieldset><legend>view</legend><button data-act="fit">fit all</button> ' +
    '<button data-act="fail"' + (fail ? '' : ' disabled') + '>the failure</button> ' +
    '<button data-act="in">+</button> <button data-act="out">\u2212</button> ' +
    '<button data-act="left">\u2190</button> <button data-act="right">\u2192</button>' +
    '</fieldset>' +
    fieldset('messages', counts.kinds, colourOf, state.kinds) +
    fieldset('fates', counts.fates, function (k) { return FATE[k] || '#999'; }, state.fates) +
    fieldset('marks', counts.marks, function (k) { return MARK[k] || '#888'; }, state.marks) +
    '<fieldset><legend>lanes</legend><input id="lanes" type="search" size="16" ' +
    'placeholder="e.g. c3, c5"/></fieldset>';
  var groups = {messages: state.kinds, fates: state.fates, marks: state.marks};
  controls.addEventListener('change', function (ev) {
    var el = ev.target;
    if (el.getAttribute('data-group')) {
      groups[el.getAttribute('data-group')][el.getAttribute('data-key')] = el.checked;
      refresh();
    }
  });
  controls.addEventListener('click', function (ev) {
    var act = ev.target.getAttribute && ev.target.getAttribute('data-act');
    if (!act) { return; }
    var w = state.v1 - state.v0;
    if (act === 'fit') { setView(0, endMs * 1.02 + 1); }
    if (act === 'fail') { failView(); }
    if (act === 'in') { setView(state.v0 + w / 4, state.v1 - w / 4); }
    if (act === 'out') { setView(state.v0 - w / 2, state.v1 + w / 2); }
    if (act === 'left') { setView(state.v0 - w / 3, state.v1 - w / 3); }
    if (act === 'right') { setView(state.v0 + w / 3, state.v1 + w / 3); }
  });
  document.getElementById('lanes').addEventListener('input', function (ev) {
    state.lanes = ev.target.value; refresh();
  });
  document.getElementById('search').addEventListener('input', function (ev) {
    state.search = ev.target.value.toLowerCase(); renderRows();
  });
  document.getElementById('inview').addEventListener('change', function (ev) {
    state.inview = ev.target.checked; renderRows();
  });

  // ---- which lanes and items are shown ----
  var laneRow = [];  // lane index -> row on the canvas, or -1 when filtered out
  function layoutLanes() {
    var words = state.lanes.split(/[\s,]+/).filter(function (w) { return w; });
    var n = 0;
    D.lanes.forEach(function (name, i) {
      var parts = name.split('/');
      var client = parts[parts.length - 1];
      var keep = !words.length || i === 0 || words.some(function (w) {
        return client === w || name === w;
      });
      laneRow[i] = keep ? n++ : -1;
    });
    return n;
  }
  function msgShown(m) {
    return state.kinds[m.k] !== false && state.fates[fateOf(m)] !== false &&
      laneRow[m.f] >= 0 && laneRow[m.t] >= 0;
  }
  function markShown(m) { return state.marks[m.k] !== false && laneRow[m.n] >= 0; }
  function rowShown(r) {
    var ref = r.ref;
    if (ref.type === 'msg' && !msgShown(D.msgs[ref.i])) { return false; }
    if (ref.type === 'mark' && !markShown(D.marks[ref.i])) { return false; }
    if (ref.type === 'span' && laneRow[D.spans[ref.i].n] < 0) { return false; }
    if (state.inview && ref.type !== 'fail' && (r.t < state.v0 || r.t > state.v1)) {
      return false;
    }
    if (state.search && (r.lane + ' ' + r.k + ' ' + r.l + ' ' + r.x + ' ' + r.s)
        .toLowerCase().indexOf(state.search) < 0) { return false; }
    return true;
  }

  // ---- the canvas ----
  var canvas = document.getElementById('tl');
  var wrap = document.getElementById('tl-wrap');
  var ctx = canvas.getContext('2d');
  var W = 800, H = 200;
  function X(t) { return GUTTER + (t - state.v0) / (state.v1 - state.v0) * (W - GUTTER - 12); }
  function T(x) { return state.v0 + (x - GUTTER) / (W - GUTTER - 12) * (state.v1 - state.v0); }
  function Y(lane) { return TOP + laneRow[lane] * LANE_H + LANE_H / 2; }
  function niceStep(span) {
    var raw = span / 8, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function drawAxisAndLanes(n) {
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    D.lanes.forEach(function (name, i) {
      if (laneRow[i] < 0) { return; }
      var y = TOP + laneRow[i] * LANE_H;
      ctx.fillStyle = i === 0 ? '#eef0ff' : name.indexOf('/') >= 0 ? '#f5f6f8' : '#fff';
      ctx.fillRect(0, y, W, LANE_H);
      ctx.fillStyle = '#222';
      ctx.font = (name.indexOf('/') >= 0 ? '' : 'bold ') + '12px sans-serif';
      ctx.fillText(name, 6, y + LANE_H / 2 + 4);
    });
    var step = Math.max(1, niceStep(state.v1 - state.v0));
    ctx.strokeStyle = '#e4e4e4'; ctx.fillStyle = '#666'; ctx.font = '10px sans-serif';
    for (var t = Math.ceil(state.v0 / step) * step; t <= state.v1; t += step) {
      var x = X(t);
      ctx.beginPath(); ctx.moveTo(x, TOP - 6); ctx.lineTo(x, TOP + n * LANE_H); ctx.stroke();
      ctx.fillText(Math.round(t) + 'ms', x + 2, TOP - 9);
    }
    ctx.strokeStyle = '#999';
    ctx.beginPath(); ctx.moveTo(GUTTER - 4, 0); ctx.lineTo(GUTTER - 4, H); ctx.stroke();
  }
  function drawSpans(n) {
    D.spans.forEach(function (s) {
      if (laneRow[s.n] < 0 || s.b < state.v0 || s.a > state.v1) { return; }
      var x0 = Math.max(GUTTER, X(s.a)), x1 = Math.min(W, X(s.b));
      ctx.fillStyle = 'rgba(255,140,0,0.07)';
      ctx.fillRect(x0, TOP, Math.max(1, x1 - x0), n * LANE_H);
      ctx.fillStyle = 'rgba(255,140,0,0.30)';
      ctx.fillRect(x0, TOP + laneRow[s.n] * LANE_H + 1, Math.max(1, x1 - x0), LANE_H - 2);
    });
  }
  function cross(x, y, r) {
    ctx.beginPath(); ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r); ctx.stroke();
  }
  function endOf(m) {  // where a message's line ends: a lost one dies halfway between the lanes
    var y0 = Y(m.f), y1 = Y(m.t);
    return {x0: X(m.a), y0: y0, x1: X(m.b), y1: m.x === 'lost' ? (y0 + y1) / 2 : y1};
  }
  function drawMsg(m, highlight) {
    var e = endOf(m);
    ctx.strokeStyle = colourOf(m.k); ctx.lineWidth = highlight ? 3 : 1.2;
    ctx.setLineDash(m.x === 'lost' ? [4, 3] : m.x === 'in flight' ? [6, 3] : m.d ? [1.5, 2] : []);
    ctx.beginPath(); ctx.moveTo(e.x0, e.y0); ctx.lineTo(e.x1, e.y1); ctx.stroke();
    ctx.setLineDash([]);
    if (m.x === 'lost') {
      ctx.strokeStyle = '#d62728'; ctx.lineWidth = 2; cross(e.x1, e.y1, 4);
    } else if (m.x === 'in flight') {
      ctx.beginPath(); ctx.arc(e.x1, e.y1, 3, 0, 7); ctx.stroke();
    } else {
      var a = Math.atan2(e.y1 - e.y0, e.x1 - e.x0);
      ctx.fillStyle = colourOf(m.k); ctx.beginPath(); ctx.moveTo(e.x1, e.y1);
      ctx.lineTo(e.x1 - 6 * Math.cos(a - 0.4), e.y1 - 6 * Math.sin(a - 0.4));
      ctx.lineTo(e.x1 - 6 * Math.cos(a + 0.4), e.y1 - 6 * Math.sin(a + 0.4)); ctx.fill();
    }
    if (m.d) { ctx.fillStyle = '#9467bd'; ctx.fillText('2\u00d7', e.x1 + 3, e.y1 - 3); }
    ctx.lineWidth = 1;
  }
  function drawMark(m, highlight) {
    var x = X(m.a), y = Y(m.n), r = highlight ? 6 : 4;
    ctx.fillStyle = MARK[m.k] || '#888'; ctx.beginPath();
    if (m.k === 'fault') {
      ctx.moveTo(x, y - r - 1); ctx.lineTo(x + r + 1, y + r); ctx.lineTo(x - r - 1, y + r);
    } else if (m.k === 'apply') {
      ctx.rect(x - r + 1, y - r + 1, 2 * r - 2, 2 * r - 2);
    } else {
      ctx.arc(x, y, m.k === 'info' ? r - 1 : r, 0, 7);
    }
    ctx.fill();
    if (highlight) { ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.stroke(); ctx.lineWidth = 1; }
  }
  function drawFailure(n) {
    if (!fail || fail.t < state.v0 || fail.t > state.v1) { return; }
    var x = X(fail.t);
    ctx.strokeStyle = '#d00'; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.moveTo(x, TOP - 4); ctx.lineTo(x, TOP + n * LANE_H); ctx.stroke();
    ctx.lineWidth = 1; ctx.fillStyle = '#d00'; ctx.font = 'bold 11px sans-serif';
    var text = '\u2717 ' + fail.property + ' @ step ' + fail.step;
    var tw = ctx.measureText(text).width;
    ctx.fillStyle = 'rgba(255,255,255,0.85)';
    var tx = Math.min(x + 4, W - 8 - tw);
    ctx.fillRect(tx - 2, TOP - 20, tw + 4, 14);
    ctx.fillStyle = '#d00'; ctx.fillText(text, tx, TOP - 9);
  }
  function visible(a, b) { return Math.max(a, b) >= state.v0 && Math.min(a, b) <= state.v1; }
  function draw() {
    var n = layoutLanes();
    W = Math.max(480, wrap.clientWidth || 800);
    H = TOP + n * LANE_H + 8;
    var dpr = window.devicePixelRatio || 1;
    canvas.width = W * dpr; canvas.height = H * dpr;
    canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawAxisAndLanes(n);
    ctx.save(); ctx.beginPath(); ctx.rect(GUTTER - 3, 0, W, H); ctx.clip();
    drawSpans(n);
    ctx.font = '10px sans-serif';
    D.msgs.forEach(function (m) { if (msgShown(m) && visible(m.a, m.b)) { drawMsg(m, false); } });
    D.marks.forEach(function (m) {
      if (markShown(m) && visible(m.a, m.a)) { drawMark(m, false); }
    });
    drawFailure(n);
    body.setAttribute('data-view', Math.round(state.v0) + ',' + Math.round(state.v1));
    var sel = state.sel >= 0 ? rows[state.sel].ref : null;
    [sel, state.hover].forEach(function (ref) {
      if (ref && ref.type === 'msg' && msgShown(D.msgs[ref.i])) { drawMsg(D.msgs[ref.i], true); }
      if (ref && ref.type === 'mark' && markShown(D.marks[ref.i])) {
        drawMark(D.marks[ref.i], true);
      }
    });
    ctx.restore();
  }

  // ---- the step list ----
  var tbody = document.querySelector('#steps tbody');
  var shownRows = 0;
  function renderRows() {
    var html = [];
    shownRows = 0;
    rows.forEach(function (r, i) {
      if (!rowShown(r)) { return; }
      ++shownRows;
      var cls = (r.ref.type === 'fail' ? 'fail' : '') + (/^lost/.test(r.x) ? ' lost' : '') +
        (i === state.sel ? ' selected' : '');
      html.push('<tr data-i="' + i + '" data-step="' + r.s + '" class="' + cls + '"' +
        (i === state.sel ? ' aria-selected="true"' : '') + '><td>' + r.s + '</td><td>' + r.t +
        '</td><td>' + esc(r.lane) + '</td><td>' + esc(r.k) + '</td><td title="' + esc(r.l) +
        '">' + esc(r.l) + '</td><td class="x">' + esc(r.x) + '</td></tr>');
    });
    tbody.innerHTML = '<tr><th>step</th><th>ms</th><th>lane</th><th>kind</th><th>what</th>' +
      '<th>fate</th></tr>' + html.join('');
    body.setAttribute('data-rows', String(shownRows));
    scrollToSelected();
  }
  function scrollToSelected() {
    var tr = tbody.querySelector('tr.selected');
    if (!tr) { return; }
    var box = document.getElementById('steps-scroll');
    box.scrollTop = Math.max(0, tr.offsetTop - box.clientHeight / 2);
  }
  function select(i, centre) {
    var old = tbody.querySelector('tr.selected');
    if (old) {
      old.className = old.className.replace(' selected', '');
      old.removeAttribute('aria-selected');
    }
    state.sel = i;
    var tr = tbody.querySelector('tr[data-i="' + i + '"]');
    if (tr) { tr.className += ' selected'; tr.setAttribute('aria-selected', 'true'); }
    body.setAttribute('data-selected-step', String(rows[i].s));
    scrollToSelected();
    var t = rows[i].t, w = state.v1 - state.v0;
    if (centre && (t < state.v0 || t > state.v1)) {
      setView(t - w / 2, t + w / 2);
    } else {
      draw();
    }
  }
  tbody.addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr[data-i]');
    if (tr) { select(Number(tr.getAttribute('data-i')), true); }
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.target.tagName === 'INPUT' || (ev.key !== 'j' && ev.key !== 'k')) { return; }
    var trs = tbody.querySelectorAll('tr[data-i]');
    var at = -1;
    for (var k = 0; k < trs.length; ++k) {
      if (Number(trs[k].getAttribute('data-i')) === state.sel) { at = k; }
    }
    var next = trs[Math.max(0, Math.min(trs.length - 1, at + (ev.key === 'j' ? 1 : -1)))];
    if (next) { select(Number(next.getAttribute('data-i')), true); }
  });
  document.getElementById('failstep') && document.getElementById('failstep')
    .addEventListener('click', function (ev) {
      ev.preventDefault(); failView(); if (failRow >= 0) { select(failRow, true); }
    });

  // ---- view: zoom and pan ----
  function setView(v0, v1) {
    var min = 1, max = endMs * 3 + 10;
    var w = Math.min(max, Math.max(min, v1 - v0)), c = (v0 + v1) / 2;
    state.v0 = c - w / 2; state.v1 = c + w / 2;
    draw();
    if (state.inview) { renderRows(); }
  }
  // The failing step at the right, with the last ~60 items before it (a failure at quiescence
  // may come long after the last message) and at least 5% of the run.
  function failView() {
    var from = Math.min(fail.t - Math.max(50, endMs * 0.05), rows[Math.max(0, failRow - 60)].t);
    var w = fail.t - from;
    setView(from - w * 0.03, fail.t + w * 0.12);
  }
  canvas.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var tm = T(ev.offsetX), f = Math.exp(ev.deltaY * 0.0015);
    setView(tm - (tm - state.v0) * f, tm + (state.v1 - tm) * f);
  }, {passive: false});
  var drag = null;
  canvas.addEventListener('mousedown', function (ev) {
    drag = {x: ev.clientX, v0: state.v0, v1: state.v1, moved: false};
  });
  window.addEventListener('mouseup', function (ev) {
    if (drag && !drag.moved) { clickAt(ev); }
    drag = null;
  });
  canvas.addEventListener('mousemove', function (ev) {
    if (drag) {
      var dt = (ev.clientX - drag.x) / (W - GUTTER - 12) * (drag.v1 - drag.v0);
      if (Math.abs(ev.clientX - drag.x) > 2) { drag.moved = true; }
      state.v0 = drag.v0 - dt; state.v1 = drag.v1 - dt; draw();
      return;
    }
    hoverAt(ev);
  });
  canvas.addEventListener('mouseleave', function () {
    state.hover = null; document.getElementById('tip').style.display = 'none'; draw();
  });
  function segDist(px, py, e) {
    var dx = e.x1 - e.x0, dy = e.y1 - e.y0, l = dx * dx + dy * dy;
    var u = l ? Math.max(0, Math.min(1, ((px - e.x0) * dx + (py - e.y0) * dy) / l)) : 0;
    var x = e.x0 + u * dx - px, y = e.y0 + u * dy - py;
    return Math.sqrt(x * x + y * y);
  }
  function nearest(px, py) {
    var best = null, bd = 6;
    D.marks.forEach(function (m, i) {
      if (!markShown(m) || !visible(m.a, m.a)) { return; }
      var d = Math.abs(X(m.a) - px) + Math.abs(Y(m.n) - py);
      if (d < bd) { bd = d; best = {type: 'mark', i: i}; }
    });
    D.msgs.forEach(function (m, i) {
      if (!msgShown(m) || !visible(m.a, m.b)) { return; }
      var d = segDist(px, py, endOf(m));
      if (d < bd) { bd = d; best = {type: 'msg', i: i}; }
    });
    return best;
  }
  function describe(ref) {
    if (ref.type === 'mark') {
      var k = D.marks[ref.i];
      return 'step ' + k.s + ', ' + k.a + ' ms, ' + D.lanes[k.n] + '\n' + k.k + ': ' + k.l;
    }
    var m = D.msgs[ref.i];
    return D.lanes[m.f] + ' \u2192 ' + D.lanes[m.t] + '  [' + m.k + ']\n' + m.l + '\nsent ' + m.a +
      ' ms (step ' + m.s + '), ' + m.x + (m.d ? ' (duplicate copy)' : '') + ' ' + m.b + ' ms' +
      (m.e ? ' (step ' + m.e + ')' : '');
  }
  function hoverAt(ev) {
    var ref = nearest(ev.offsetX, ev.offsetY);
    var tip = document.getElementById('tip');
    state.hover = ref;
    if (!ref) { tip.style.display = 'none'; draw(); return; }
    tip.textContent = describe(ref);
    tip.style.left = (ev.clientX + 14) + 'px'; tip.style.top = (ev.clientY + 10) + 'px';
    tip.style.display = 'block';
    draw();
  }
  function clickAt(ev) {
    if (ev.target !== canvas) { return; }
    var rect = canvas.getBoundingClientRect();
    var ref = nearest(ev.clientX - rect.left, ev.clientY - rect.top);
    if (!ref) { return; }
    for (var i = 0; i < rows.length; ++i) {
      if (rows[i].ref.type === ref.type && rows[i].ref.i === ref.i) { select(i, false); return; }
    }
  }
  window.addEventListener('resize', draw);

  function refresh() { draw(); renderRows(); }

  // ---- first render: the failing step selected and in view ----
  var lost = counts.fates.lost || 0, dup = counts.fates.duplicate || 0;
  document.getElementById('counts').textContent = D.msgs.length + ' messages (' +
    (counts.fates.delivered || 0) + ' delivered, ' + lost + ' lost, ' + dup + ' duplicates, ' +
    (counts.fates['in flight'] || 0) + ' in flight at the end), ' + D.marks.length + ' marks, ' +
    D.spans.length + ' fault windows, ' + D.lanes.length + ' lanes, ' + endMs + ' ms.';
  body.setAttribute('data-messages', String(D.msgs.length));
  if (fail) {
    state.sel = failRow;
    failView();
    body.setAttribute('data-selected-step', String(fail.step));
  } else {
    state.v1 = endMs * 1.02 + 1;
  }
  refresh();
  body.setAttribute('data-render', 'ok');
})();
)js";

}  // namespace rindle::sim
