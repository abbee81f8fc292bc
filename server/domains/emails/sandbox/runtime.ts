/**
 * The JavaScript evaluated inside QuickJS before the owner's bundle: a tiny React stand-in (elements
 * are plain objects, function components are called), the email components as tag names, Latch's
 * `<Subject>` / `<NotificationCategory>` markers, and the resolver that turns the owner's element
 * tree into JSON of intrinsic elements. Nothing here reaches the host: the only way out is the JSON
 * string `__latchRender` returns. React itself and react-dom are deliberately not loaded: evaluating
 * them costs 50–200 ms per context, and the real rendering happens on the host from validated data.
 */

/** The components of `@react-email/components` an owner may use; the host maps each to the real one. */
export const EMAIL_COMPONENTS = [
  'Html',
  'Head',
  'Body',
  'Container',
  'Section',
  'Row',
  'Column',
  'Text',
  'Button',
  'Link',
  'Img',
  'Hr',
  'Heading',
  'Preview',
  'Font',
  'Tailwind',
] as const;

/** Caps on what one render may return, checked inside the sandbox (and again on the host). */
export const TREE_LIMITS = { maxDepth: 200, maxNodes: 20_000, maxTextLength: 1_000_000 } as const;

export const SANDBOX_PRELUDE = `
'use strict';
(function () {
  var ELEMENT = Symbol.for('latch.element');
  var FRAGMENT = 'latch:Fragment';
  function createElement(type, config) {
    var props = {};
    var key = null;
    if (config) Object.keys(config).forEach(function (k) { if (k === 'key') key = config[k]; else props[k] = config[k]; });
    var n = arguments.length - 2;
    if (n === 1) props.children = arguments[2];
    else if (n > 1) props.children = Array.prototype.slice.call(arguments, 2);
    return { $$typeof: ELEMENT, type: type, key: key, props: props };
  }
  function jsx(type, props, key) {
    return { $$typeof: ELEMENT, type: type, key: key === undefined ? null : key, props: props || {} };
  }
  function identity(v) { return v; }
  var React = {
    createElement: createElement,
    Fragment: FRAGMENT,
    isValidElement: function (v) { return !!v && v.$$typeof === ELEMENT; },
    useState: function (v) { return [typeof v === 'function' ? v() : v, function () {}]; },
    useMemo: function (f) { return f(); },
    useCallback: identity,
    useRef: function (v) { return { current: v }; },
    useEffect: function () {},
    useId: function () { return 'id'; },
    createContext: function (v) { return { _default: v, Provider: FRAGMENT }; },
    useContext: function (c) { return c._default; },
    forwardRef: function (f) { return function (p) { return f(p, null); }; },
    memo: identity,
    Children: { toArray: function (c) { return [].concat(c == null ? [] : c); } },
  };
  React.default = React;
  var components = {};
  ${JSON.stringify(EMAIL_COMPONENTS)}.forEach(function (name) { components[name] = name; });
  var latch = { Subject: 'latch:Subject', NotificationCategory: 'latch:NotificationCategory' };
  var meta = { subject: null, notificationCategory: null };
  var nodes = 0;

  function fail(message) { throw new Error(message); }
  function textOf(node) {
    if (node == null || typeof node === 'boolean') return '';
    if (typeof node === 'string' || typeof node === 'number') return String(node);
    if (Array.isArray(node)) return node.map(textOf).join('');
    fail('<Subject> and <NotificationCategory> take text only');
  }
  function cleanProps(props) {
    var out = {};
    // Own keys only: a template may have put enumerable junk on Object.prototype.
    Object.keys(props).forEach(function (k) {
      if (k === 'children') return;
      var v = props[k];
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
      else if (k === 'style' && v && typeof v === 'object') {
        var s = {};
        Object.keys(v).forEach(function (sk) { if (typeof v[sk] === 'string' || typeof v[sk] === 'number') s[sk] = v[sk]; });
        out.style = s;
      }
      // Functions (event handlers), objects and symbols never leave the sandbox.
    });
    return out;
  }
  function resolve(node, depth) {
    if (depth > ${TREE_LIMITS.maxDepth}) fail('The element tree is nested too deeply (more than ${TREE_LIMITS.maxDepth} levels)');
    if (++nodes > ${TREE_LIMITS.maxNodes}) fail('The element tree has too many nodes (more than ${TREE_LIMITS.maxNodes})');
    if (node == null || typeof node === 'boolean') return null;
    if (typeof node === 'string') return node;
    if (typeof node === 'number') return String(node);
    if (Array.isArray(node)) return resolveChildren(node, depth);
    if (typeof node !== 'object' || node.$$typeof !== ELEMENT) fail('Objects are not valid as an element child');
    var type = node.type, props = node.props || {};
    if (type === 'latch:Subject') { meta.subject = textOf(props.value !== undefined ? props.value : props.children); return null; }
    if (type === 'latch:NotificationCategory') { meta.notificationCategory = textOf(props.value !== undefined ? props.value : props.children); return null; }
    if (type === FRAGMENT) return resolveChildren([props.children], depth);
    if (typeof type === 'function') return resolve(type(props), depth + 1);
    if (typeof type === 'string') return { t: type, p: cleanProps(props), c: resolveChildren([props.children], depth) };
    fail('Unsupported element type: ' + String(type));
  }
  function resolveChildren(list, depth) {
    var out = [];
    (function walk(items) {
      for (var i = 0; i < items.length; i++) {
        var r = Array.isArray(items[i]) ? (walk(items[i]), null) : resolve(items[i], depth + 1);
        if (r === null) continue;
        if (Array.isArray(r)) for (var j = 0; j < r.length; j++) out.push(r[j]);
        else out.push(r);
      }
    })(list);
    return out;
  }
  function checkVariables(schema, variables) {
    if (!schema) return;
    if (typeof schema !== 'object') fail('variablesSchema must be an object of field types');
    Object.keys(variables).forEach(function (name) { if (!Object.prototype.hasOwnProperty.call(schema, name)) fail('Unknown variable: ' + name); });
    Object.keys(schema).forEach(function (field) {
      var spec = String(schema[field]);
      var optional = spec.charAt(spec.length - 1) === '?';
      var kind = optional ? spec.slice(0, -1) : spec;
      var value = Object.prototype.hasOwnProperty.call(variables, field) ? variables[field] : undefined;
      if (['string', 'number', 'boolean'].indexOf(kind) < 0) fail('Unsupported type in variablesSchema for ' + field + ': ' + spec);
      if (value === undefined || value === null) { if (!optional) fail('Missing variable: ' + field); return; }
      if (typeof value !== kind) fail('Variable ' + field + ' must be a ' + kind);
    });
  }
  globalThis.__latch = { react: React, jsxRuntime: { jsx: jsx, jsxs: jsx, jsxDEV: jsx, Fragment: FRAGMENT }, components: components, emails: latch };
  globalThis.__latchRender = function (inputJson) {
    var input = JSON.parse(inputJson);
    var mod = globalThis.__latchModules;
    var template = mod.template, theme = mod.theme;
    var Component = template.EmailTemplate || template.default;
    if (typeof Component !== 'function') fail('The template must export a function EmailTemplate');
    checkVariables(template.variablesSchema, input.variables || {});
    var content = createElement(Component, { user: input.user, project: input.project, variables: input.variables || {} });
    var root = content;
    if (theme) {
      var Theme = theme.EmailTheme || theme.default;
      if (typeof Theme !== 'function') fail('The theme must export a function EmailTheme');
      root = createElement(Theme, { unsubscribeLink: input.unsubscribeLink, projectLogos: input.projectLogos, children: content });
    }
    var tree = resolve(root, 0);
    return JSON.stringify({ tree: tree, meta: meta });
  };
})();
`;
