import * as Email from '@react-email/components';
import { render, toPlainText } from '@react-email/render';
import { createElement, Fragment, type ReactElement, type ReactNode } from 'react';
import { EMAIL_COMPONENTS, TREE_LIMITS } from './runtime.js';
import { renderStatic } from '../static-render.js';

/**
 * The host half of a sandboxed render: the JSON tree the sandbox returned is untrusted data. Every
 * tag, attribute and URL is checked against an allowlist, then the tree is rebuilt as React elements
 * with the real React Email components (and Tailwind, which inlines classes here on the host where
 * it is fast) and rendered to HTML and plain text. Text children stay text, so React escapes them.
 */

export class TreeValidationError extends Error {}

/** Email-safe HTML elements: no script, style, iframe, object, form, input, meta, base, svg. */
const HTML_TAGS = new Set([
  'a',
  'abbr',
  'b',
  'blockquote',
  'br',
  'caption',
  'center',
  'code',
  'col',
  'colgroup',
  'dd',
  'del',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'font',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'u',
  'ul',
]);

const COMPONENTS = new Map<string, unknown>(EMAIL_COMPONENTS.map((name) => [name, (Email as Record<string, unknown>)[name]]));

const URL_PROPS = new Set(['href', 'src', 'background', 'action', 'poster', 'cite']);
const SAFE_PROP = /^(?:[a-z][a-zA-Z0-9]*|(?:data|aria)-[a-z0-9-]+)$/;
const SAFE_STYLE_KEY = /^[a-zA-Z-]+$/;

/** http, https and mailto only: no javascript:, data:, or relative paths that mean nothing in a mailbox. */
export function isAllowedUrl(value: string): boolean {
  const trimmed = value.trim();
  return /^(https?:\/\/|mailto:)/i.test(trimmed) && !/[\u0000-\u001f]/.test(trimmed);
}

interface Node {
  t: string;
  p: Record<string, unknown>;
  c: (Node | string)[];
}

function validateProps(tag: string, props: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) {
    if (!SAFE_PROP.test(key) || /^on/i.test(key) || key === 'dangerouslySetInnerHTML' || key === 'srcSet' || key === 'srcset') {
      throw new TreeValidationError(`Attribute ${key} is not allowed on <${tag}>`);
    }
    if (key === 'style') {
      if (!value || typeof value !== 'object') throw new TreeValidationError(`style on <${tag}> must be an object`);
      const style: Record<string, string | number> = {};
      for (const [k, v] of Object.entries(value)) {
        if (!SAFE_STYLE_KEY.test(k) || (typeof v !== 'string' && typeof v !== 'number')) throw new TreeValidationError(`Style ${k} is not allowed`);
        if (typeof v === 'string' && /url\s*\(|expression\s*\(|javascript:/i.test(v) && !/url\(\s*['"]?https:\/\//i.test(v)) {
          throw new TreeValidationError(`Style ${k} on <${tag}> may only load https URLs`);
        }
        style[k] = v;
      }
      out.style = style;
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      throw new TreeValidationError(`Attribute ${key} on <${tag}> must be text`);
    if (URL_PROPS.has(key) && (typeof value !== 'string' || !isAllowedUrl(value))) {
      throw new TreeValidationError(`${key} on <${tag}> must be an http, https or mailto URL`);
    }
    out[key] = value;
  }
  return out;
}

function toElement(node: unknown, depth: number, counter: { nodes: number; text: number }, state: { tailwind: boolean; ownTailwind: boolean }): ReactNode {
  if (++counter.nodes > TREE_LIMITS.maxNodes) throw new TreeValidationError('The e-mail has too many elements');
  if (depth > TREE_LIMITS.maxDepth) throw new TreeValidationError('The e-mail is nested too deeply');
  if (typeof node === 'string') {
    counter.text += node.length;
    if (counter.text > TREE_LIMITS.maxTextLength) throw new TreeValidationError('The e-mail has too much text');
    return node;
  }
  if (!node || typeof node !== 'object') throw new TreeValidationError('Malformed element');
  const { t, p, c } = node as Node;
  if (typeof t !== 'string' || !p || typeof p !== 'object' || !Array.isArray(c)) throw new TreeValidationError('Malformed element');
  const component = COMPONENTS.get(t);
  if (!component && !HTML_TAGS.has(t)) throw new TreeValidationError(`Element <${t}> is not allowed in an e-mail`);
  const props = validateProps(t, p);
  if (typeof props.className === 'string') state.tailwind = true;
  if (t === 'Tailwind') state.ownTailwind = true;
  const children = c.map((child) => toElement(child, depth + 1, counter, state));
  // Void elements take no children; React throws on them otherwise.
  const isVoid = ['br', 'hr', 'img', 'col'].includes(t) || t === 'Img' || t === 'Hr';
  const args: ReactNode[] = isVoid ? [] : children;
  return createElement((component as string) ?? t, props, ...args);
}

export interface HostRendered {
  html: string;
  text: string;
}

/**
 * Validates the sandbox's tree and rebuilds it as React elements (wrapped in Tailwind when it uses
 * classes and has no Tailwind of its own). `suspends`: the tree has Tailwind, whose compiler loads
 * asynchronously, so it needs a streaming render. @throws TreeValidationError naming what was refused.
 */
export function toEmailElement(tree: unknown): { element: ReactElement; suspends: boolean } {
  const state = { tailwind: false, ownTailwind: false };
  const nodes = (Array.isArray(tree) ? tree : [tree]).filter((n) => n !== null);
  const counter = { nodes: 0, text: 0 };
  const children = nodes.map((n) => toElement(n, 0, counter, state));
  const content = children.length === 1 ? children[0] : createElement(Fragment, null, ...children);
  // Tailwind costs tens of milliseconds per render: only when the e-mail uses classes at all.
  const element = state.tailwind && !state.ownTailwind ? createElement(Email.Tailwind, null, content) : content;
  return { element: element as ReactElement, suspends: state.tailwind || state.ownTailwind };
}

/** Validates the sandbox's tree and renders it. @throws TreeValidationError naming what was refused. */
export async function renderTree(tree: unknown): Promise<HostRendered> {
  const { element, suspends } = toEmailElement(tree);
  // React renders once: the plain text is converted from that HTML (what `render(…, { plainText })`
  // does after a second React render of its own).
  const html = suspends ? await render(element) : renderStatic(element);
  const text = toPlainText(html);
  return { html, text };
}
