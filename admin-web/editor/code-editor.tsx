import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { EditorState, type Extension, RangeSet, StateEffect, StateField } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  drawSelection,
  EditorView,
  gutter,
  GutterMarker,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  WidgetType,
} from '@codemirror/view';
import { useEffect, useRef } from 'react';

/**
 * The console's TSX editor (CodeMirror 6), in a chunk of its own: the email editor page loads it
 * with React.lazy, so the console's first load does not carry it. Syntax highlighting for TSX,
 * undo/redo history with the usual keymap (Mod-z, Mod-Shift-z / Mod-y, Tab indents), line numbers,
 * and a compile error shown at its line: a gutter marker, the line highlighted, and the message
 * under it.
 */
export interface SourceError {
  line: number;
  message: string;
}

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  error: SourceError | null;
  label: string;
}

const setError = StateEffect.define<SourceError | null>();

class ErrorMarker extends GutterMarker {
  override toDOM() {
    const marker = document.createElement('span');
    marker.className = 'cm-error-marker';
    marker.textContent = '●';
    marker.setAttribute('aria-hidden', 'true');
    return marker;
  }
}

class ErrorMessageWidget extends WidgetType {
  constructor(readonly message: string) {
    super();
  }
  override eq(other: ErrorMessageWidget) {
    return other.message === this.message;
  }
  override toDOM() {
    const box = document.createElement('div');
    box.className = 'cm-error-message';
    box.setAttribute('role', 'alert');
    box.textContent = this.message;
    return box;
  }
}

interface ErrorState {
  error: SourceError | null;
  decorations: DecorationSet;
  markers: RangeSet<GutterMarker>;
}

function errorState(state: EditorState, error: SourceError | null): ErrorState {
  if (!error) return { error, decorations: Decoration.none, markers: RangeSet.empty };
  const line = state.doc.line(Math.min(Math.max(error.line, 1), state.doc.lines));
  return {
    error,
    decorations: Decoration.set([
      Decoration.line({ class: 'cm-error-line', attributes: { 'data-error-line': String(error.line), title: error.message } }).range(line.from),
      Decoration.widget({ widget: new ErrorMessageWidget(`Line ${error.line}: ${error.message}`), block: true, side: 1 }).range(line.to),
    ]),
    markers: RangeSet.of([new ErrorMarker().range(line.from)]),
  };
}

const errorField = StateField.define<ErrorState>({
  create: (state) => errorState(state, null),
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setError)) return errorState(tr.state, effect.value);
    // Until the next render says otherwise, the marks follow the text they were on.
    return tr.docChanged ? { error: value.error, decorations: value.decorations.map(tr.changes), markers: value.markers.map(tr.changes) } : value;
  },
  provide: (field) => [
    EditorView.decorations.from(field, (value) => value.decorations),
    gutter({ class: 'cm-error-gutter', markers: (view) => view.state.field(field).markers }),
  ],
});

const theme = EditorView.theme({
  '&': { fontSize: '13px', border: '1px solid var(--border, #d0d7de)', borderRadius: '6px', height: '100%' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', minHeight: '420px' },
  '.cm-error-line': { backgroundColor: 'rgba(220, 38, 38, 0.12)' },
  '.cm-error-marker': { color: '#dc2626', padding: '0 2px' },
  '.cm-error-message': { color: '#b91c1c', background: 'rgba(220, 38, 38, 0.06)', padding: '2px 8px', fontFamily: 'system-ui, sans-serif' },
});

export function CodeEditor({ value, onChange, error, label }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      javascript({ jsx: true, typescript: true }),
      keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
      errorField,
      theme,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChangeRef.current(update.state.doc.toString());
      }),
    ];
    const created = new EditorView({ parent: host.current!, state: EditorState.create({ doc: value, extensions }) });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
    // The view is made once; later values arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A value from outside (another item, an AI proposal): one change, so Mod-z brings the old text back.
  useEffect(() => {
    const current = view.current;
    if (!current) return;
    const text = current.state.doc.toString();
    if (text !== value) current.dispatch({ changes: { from: 0, to: text.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: setError.of(error) });
  }, [error?.line, error?.message]);

  return <div ref={host} className="code-editor" data-error-line={error?.line ?? undefined} />;
}
