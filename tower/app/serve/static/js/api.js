// The JSON API as the pages use it (docs/serve.md): every answer is {ok, status, data}, errors included.
export async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  try {
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch { data = { error: `${res.status} ${res.statusText}` }; }
    return { ok: res.ok, status: res.status, data };
  } catch (err) {
    return { ok: false, status: 0, data: { error: 'the server cannot be reached' } };
  }
}

export function errorText(answer) {
  const d = answer.data || {};
  return d.rule ? `${d.error} (${d.rule})` : d.error || `error ${answer.status}`;
}

export const el = (id) => document.getElementById(id);

export function item(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// texts sorted as people count: c1, c2, ..., c10; each kind of move (the first word) keeps its place
const collator = new Intl.Collator('en', { numeric: true });
export function byNumber(names) {  // names alone (block ids): c2 before c10, each compared whole
  return [...names].sort(collator.compare);
}
export function naturally(texts) {
  const kinds = [...new Set(texts.map((t) => t.split(' ')[0]))];
  return [...texts].sort((a, b) => (kinds.indexOf(a.split(' ')[0]) - kinds.indexOf(b.split(' ')[0]))
    || collator.compare(a, b));
}
