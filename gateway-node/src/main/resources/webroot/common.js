// What both pages share: the token (from #token=..., then kept in sessionStorage only) and JSON API calls.
const KEY = 'farmgate.token';

export function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.has('token')) {
    sessionStorage.setItem(KEY, fragment.get('token'));
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  }
  return sessionStorage.getItem(KEY);
}

export function fragmentParam(name) {
  return new URLSearchParams(location.hash.slice(1)).get(name);
}

export function forgetToken() {
  sessionStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(method, path, body) {
  const headers = {'Authorization': 'Bearer ' + sessionStorage.getItem(KEY)};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  if (response.status === 204) {
    return null;
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ApiError(response.status, json.error || response.statusText);
  }
  return json;
}

/** Shows the token form until a token is given; resolves with it. */
export function askToken(form) {
  return new Promise(resolve => {
    form.hidden = false;
    form.onsubmit = event => {
      event.preventDefault();
      const value = form.querySelector('input').value.trim();
      if (value) {
        sessionStorage.setItem(KEY, value);
        form.hidden = true;
        resolve(value);
      }
    };
  });
}

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'onclick') {
      node.onclick = value;
    } else if (name === 'style') {
      node.setAttribute('style', value);
    } else {
      node.setAttribute(name, value);
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}
