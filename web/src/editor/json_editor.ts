// The scenario's JSON editor (CodeMirror 6). Diagnostics from the validator arrive as
// {pointer, message}; locateJson maps each pointer to the text range to underline.

import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  indentOnInput,
  syntaxHighlighting,
  defaultHighlightStyle,
} from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { EditorState, Transaction } from '@codemirror/state';
import { EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { locateJson } from '../lib/json_locate';
import type { Diagnostic } from '../protocol';

export class JsonEditor {
  readonly view: EditorView;

  constructor(
    parent: HTMLElement,
    text: string,
    private readonly onChange: (text: string) => void,
  ) {
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          foldGutter(),
          history(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          json(),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, indentWithTab]),
          EditorView.contentAttributes.of({ 'aria-label': 'Scenario JSON', 'aria-multiline': 'true' }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            const fromUser = u.transactions.some((t) => t.annotation(Transaction.userEvent) !== undefined);
            if (fromUser) this.onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  /** Replaces the text (not reported through onChange: the caller knows). */
  setText(text: string): void {
    if (text === this.text) return;
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  /** Marks diagnostics inline, each at the text its pointer names. */
  showDiagnostics(diags: readonly Diagnostic[]): void {
    const text = this.text;
    const located = locateJson(text);
    const marks: CmDiagnostic[] = diags.map((d) => {
      const r = d.pointer === '#syntax' ? syntaxRange(text, located.syntaxError?.offset ?? 0) : located.locate(d.pointer);
      return { from: r.from, to: Math.max(r.to, r.from), severity: d.severity, message: d.message, source: d.pointer || '/' };
    });
    this.view.dispatch(setDiagnostics(this.view.state, marks));
  }

  /** Selects and scrolls to the text of a pointer. */
  reveal(pointer: string): void {
    const r = locateJson(this.text).locate(pointer);
    this.view.dispatch({ selection: { anchor: r.from, head: r.to }, scrollIntoView: true });
    this.view.focus();
  }
}

function syntaxRange(text: string, offset: number): { from: number; to: number } {
  const from = Math.min(offset, text.length);
  return { from, to: Math.min(text.length, from + 1) };
}
