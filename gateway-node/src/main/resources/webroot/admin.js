import {api, element, plural, signIn} from './common.js';

const nodes = document.getElementById('nodes');
const totals = document.getElementById('totals');
let refreshes = 0;

function mb(value) {
  return value < 0 ? '–' : value >= 10240 ? (value / 1024).toFixed(1) + ' GB' : value + ' MB';
}

function bar(memory) {
  const scale = Math.max(1, memory.budget_mb);
  const pct = value => Math.max(0, Math.min(100, 100 * value / scale)).toFixed(2) + '%';
  const active = memory.reserved_mb - memory.pending_mb;
  const measured = memory.guacd_pss_mb - Math.max(0, memory.guacd_idle_pss_mb);
  return element('div', {},
    element('div', {class: 'bar', title: `reserved ${memory.reserved_mb} MB of ${memory.budget_mb} MB`},
      element('div', {class: 'reserved', style: `width:${pct(active)}`}),
      element('div', {class: 'pending', style: `left:${pct(active)};width:${pct(memory.pending_mb)}`}),
      memory.guacd_pss_mb >= 0 ? element('div', {class: 'measured', style: `left:${pct(measured)}`}) : null),
    element('div', {class: 'small'}, `reserved ${mb(memory.reserved_mb)} · budget ${mb(memory.budget_mb)} · `
      + `guacd ${mb(memory.guacd_pss_mb)} · host available ${mb(memory.available_mb)} · free ${mb(memory.free_mb)}`));
}

async function drain(id, on) {
  await api('POST', `/api/cluster/nodes/${encodeURIComponent(id)}/${on ? 'drain' : 'undrain'}`);
  await refresh();
}

function row(node) {
  const s = node.sessions;
  const f = node.fits;
  const draining = node.state === 'draining';
  return element('tr', {'data-node': node.node_id, 'data-sessions': node.sessions_total, 'data-state': node.state},
    element('td', {}, element('strong', {}, node.node_id), element('div', {class: 'small'}, node.address)),
    element('td', {}, element('span', {class: 'badge ' + node.state}, node.state)),
    element('td', {}, bar(node.memory)),
    element('td', {}, `${s.ssh} / ${s.rdp} / ${s.vnc}`, element('div', {class: 'small'},
      `${node.sessions_total} of ${node.session_cap}`)),
    element('td', {'data-fits-rdp': f.rdp}, `${f.ssh} / ${f.rdp} / ${f.vnc}`),
    element('td', {}, node.guacd_healthy ? 'answering' : 'not answering',
      element('div', {class: 'small'}, `model ${mb(node.model_vs_measured.model_mb)} · measured `
        + mb(node.model_vs_measured.measured_mb))),
    element('td', {}, element('button', {onclick: () => drain(node.node_id, !draining)},
      draining ? 'Undrain' : 'Drain')));
}

async function refresh() {
  let view;
  try {
    view = await api('GET', '/api/cluster');
  } catch (error) {
    document.getElementById('summary').textContent = error.status === 403
      ? 'this page needs an admin token: ' + error.message : 'error: ' + error.message;
    return;
  }
  nodes.replaceChildren(...view.nodes.map(row));
  const t = view.totals;
  totals.replaceChildren(element('tr', {'data-total-sessions': t.sessions},
    element('td', {}, plural(t.nodes, 'node')), element('td', {}, `${t.nodes_up} up`),
    element('td', {}, `reserved ${mb(t.reserved_mb)} of ${mb(t.budget_mb)} · free ${mb(t.free_mb)}`),
    element('td', {}, plural(t.sessions, 'session')),
    element('td', {}, `${t.fits.ssh} / ${t.fits.rdp} / ${t.fits.vnc}`), element('td'), element('td')));
  document.getElementById('summary').textContent = `${plural(t.nodes, 'node')} · ${plural(t.sessions, 'session')}`
    + ` · fits ${t.fits.ssh} more SSH, ${t.fits.rdp} RDP, ${t.fits.vnc} VNC`;
  const costs = Object.entries(view.cost_model).map(([p, c]) => `${p} ${c.at_1024x768_mb} MB`).join(', ');
  document.getElementById('model').textContent = 'cost model at 1024x768: ' + costs;
  refreshes += 1;
  document.body.dataset.refreshes = refreshes;
  document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
}

async function start() {
  await signIn(document.querySelector('form.token'), token => api('GET', '/api/cluster', undefined, token));
  document.getElementById('main').hidden = false;
  await refresh();
  setInterval(refresh, 2000);
}

start();
