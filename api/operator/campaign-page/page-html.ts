/**
 * The campaign page (/admin/campaigns/{id}): static HTML and script that
 * fetch `<page>/stats` (the admin stats answer's `data`) every few seconds
 * and draw it with Chart.js, served by the service from its own dependency
 * (`<page>/../assets/chart.umd.min.js`, no CDN). Every figure the charts
 * show is also in a table, which is what the browser test reads.
 */

import { durationWithUnit } from '../../../shared/domain/chain-stats-series.js';

const REFRESH_MS = 5_000;

const STYLE = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1d2330; }
  header { background: #1d2330; color: #fff; padding: 14px 24px; }
  header h1 { margin: 0; font-size: 20px; }
  header p { margin: 4px 0 0; opacity: .75; }
  main { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; padding: 16px 24px; }
  section { background: #fff; border-radius: 8px; padding: 14px 16px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
  section h2 { font-size: 15px; margin: 0 0 10px; }
  .kpis { grid-column: 1 / -1; display: flex; gap: 12px; flex-wrap: wrap; }
  .kpi { flex: 1; min-width: 140px; background: #fff; border-radius: 8px; padding: 10px 14px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
  .kpi b { display: block; font-size: 22px; }
  .kpi span { opacity: .7; font-size: 12px; }
  table { border-collapse: collapse; width: 100%; margin-top: 10px; font-variant-numeric: tabular-nums; }
  td, th { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eceef2; }
  td.n { text-align: right; }
  .wide { grid-column: 1 / -1; }
  .chart { position: relative; height: 280px; }
`;

const SCRIPT = `
const REFRESH_MS = ${REFRESH_MS};
const statsUrl = location.pathname.replace(/\\/$/, '') + '/stats';
const fmt = (n) => n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US', { maximumFractionDigits: 2 });
${durationWithUnit.toString()}
const duration = (s) => s === null ? '—' : durationWithUnit(s, fmt);
const el = (id) => document.getElementById(id);
const rows = (id, list) => { el(id).innerHTML = list.map((cells) => '<tr>' + cells.map(([key, value, numeric]) => '<td' + (numeric ? ' class="n"' : '') + (key ? ' data-key="' + key + '"' : '') + '>' + value + '</td>').join('') + '</tr>').join(''); };
const esc = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
let charts;

function funnelOf(s) {
  return [
    ['admitted', 'Admitted', s.users.admitted],
    ['started', 'Started', s.users.started],
    ...s.tasks.map((t) => ['task-' + t.sequence_number, 'Task ' + t.sequence_number + ': ' + t.name, t.completed_users]),
    ['completed', 'Completed', s.users.completed],
  ];
}

function makeCharts() {
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  return {
    funnel: new Chart(el('funnel-chart'), { type: 'bar', data: { labels: [], datasets: [{ label: 'Users', data: [], backgroundColor: '#3b6fd8' }] }, options: { indexAxis: 'y', plugins: { legend: { display: false } } } }),
    daily: new Chart(el('daily-chart'), { type: 'line', data: { labels: [], datasets: [
      { label: 'Starts', data: [], borderColor: '#3b6fd8', backgroundColor: '#3b6fd8' },
      { label: 'Completions', data: [], borderColor: '#2a9d5c', backgroundColor: '#2a9d5c' },
      { label: 'Claims', data: [], borderColor: '#e0892b', backgroundColor: '#e0892b' },
    ] }, options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } } }),
    budget: new Chart(el('budget-chart'), { type: 'doughnut', data: { labels: [], datasets: [{ data: [], backgroundColor: ['#e0892b', '#2a9d5c', '#3b6fd8', '#9b59b6', '#c0392b', '#7f8c8d'] }] } }),
  };
}

function draw(s) {
  const chain = s.quest_chain;
  el('title').textContent = chain.name;
  el('subtitle').textContent = chain.status + ' · ' + chain.mode + ' · ' + chain.start_date.slice(0, 10) + ' → ' + chain.end_date.slice(0, 10) + ' (' + chain.timezone + ') · updated ' + new Date().toLocaleTimeString();
  el('kpi-admitted').textContent = fmt(s.users.admitted);
  el('kpi-completed').textContent = fmt(s.users.completed);
  el('kpi-claims').textContent = fmt(s.rewards.reduce((n, r) => n + r.claims, 0));
  el('kpi-spent').textContent = fmt(s.budget.spent);
  el('kpi-left').textContent = s.budget.left === null ? 'no limit' : fmt(s.budget.left);
  el('kpi-reversals').textContent = fmt(s.reversals.claims);
  el('kpi-points').textContent = fmt(s.points_paid_out);

  const funnel = funnelOf(s);
  charts.funnel.data.labels = funnel.map(([, label]) => label);
  charts.funnel.data.datasets[0].data = funnel.map(([, , n]) => n);
  rows('funnel-rows', funnel.map(([key, label, n]) => [[null, esc(label)], [key, fmt(n), true]]));
  rows('task-rows', s.tasks.map((t) => [[null, t.sequence_number + '. ' + esc(t.name)], [null, fmt(t.completed_users), true], [null, duration(t.median_seconds_to_complete), true]]));

  charts.daily.data.labels = s.daily.map((d) => d.date);
  charts.daily.data.datasets[0].data = s.daily.map((d) => d.starts);
  charts.daily.data.datasets[1].data = s.daily.map((d) => d.completions);
  charts.daily.data.datasets[2].data = s.daily.map((d) => d.claims);

  const claimed = s.rewards.filter((r) => r.value_claimed > 0);
  const slices = s.budget.budget === null ? claimed.map((r) => [r.name, r.value_claimed]) : [['Spent', s.budget.spent], ['Left', Math.max(0, s.budget.left)]];
  charts.budget.data.labels = slices.map(([label]) => label);
  charts.budget.data.datasets[0].data = slices.map(([, n]) => n);
  el('budget-note').textContent = s.budget.budget === null ? 'No budget: value claimed per reward.' : 'Budget ' + fmt(s.budget.budget) + ': spent ' + fmt(s.budget.spent) + ', left ' + fmt(s.budget.left) + '.';
  rows('reward-rows', s.rewards.map((r) => [[null, esc(r.name) + (r.task_id === null ? ' (chain)' : '')], [null, fmt(r.claims), true], [null, fmt(r.value_claimed), true]]));
  rows('prize-rows', s.prizes.map((p) => [[null, esc(p.name)], [null, fmt(p.drawn), true], [null, p.stock_left === null ? 'unlimited' : fmt(p.stock_left), true]]));
  el('prizes').hidden = s.prizes.length === 0;
  for (const chart of Object.values(charts)) chart.update('none');
  document.body.dataset.loaded = 'true';
}

async function refresh() {
  try {
    const answer = await fetch(statsUrl, { headers: { accept: 'application/json' } });
    if (!answer.ok) throw new Error('stats answered ' + answer.status);
    const body = await answer.json();
    charts ??= makeCharts();
    draw(body.data);
    el('error').textContent = '';
  } catch (error) {
    el('error').textContent = String(error.message ?? error);
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}
refresh();
`;

export function campaignPageHtml(chartScriptPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Campaign</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style>
<script src="${chartScriptPath}"></script>
</head>
<body>
<header><h1 id="title">Campaign</h1><p id="subtitle">loading…</p><p id="error"></p></header>
<main>
  <div class="kpis">
    <div class="kpi"><b id="kpi-admitted">—</b><span>users admitted</span></div>
    <div class="kpi"><b id="kpi-completed">—</b><span>completed the chain</span></div>
    <div class="kpi"><b id="kpi-claims">—</b><span>claims</span></div>
    <div class="kpi"><b id="kpi-spent">—</b><span>budget spent</span></div>
    <div class="kpi"><b id="kpi-left">—</b><span>budget left</span></div>
    <div class="kpi"><b id="kpi-reversals">—</b><span>claims reversed</span></div>
    <div class="kpi"><b id="kpi-points">—</b><span>points paid out</span></div>
  </div>
  <section><h2>Funnel</h2><div class="chart"><canvas id="funnel-chart"></canvas></div><table id="funnel"><tbody id="funnel-rows"></tbody></table></section>
  <section><h2>Budget</h2><div class="chart"><canvas id="budget-chart"></canvas></div><p id="budget-note"></p></section>
  <section class="wide"><h2>Each day</h2><div class="chart"><canvas id="daily-chart"></canvas></div></section>
  <section><h2>Tasks</h2><table><thead><tr><th>Task</th><th>Completed</th><th>Median time from joining</th></tr></thead><tbody id="task-rows"></tbody></table></section>
  <section><h2>Rewards</h2><table><thead><tr><th>Reward</th><th>Claims</th><th>Value claimed</th></tr></thead><tbody id="reward-rows"></tbody></table></section>
  <section id="prizes"><h2>Prizes</h2><table><thead><tr><th>Prize</th><th>Drawn</th><th>Stock left</th></tr></thead><tbody id="prize-rows"></tbody></table></section>
</main>
<script>${SCRIPT}</script>
</body>
</html>`;
}
