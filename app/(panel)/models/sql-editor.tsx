'use client';
import dynamic from 'next/dynamic';
import { sql, StandardSQL } from '@codemirror/lang-sql';
import { yaml } from './yaml-mode';

// CodeMirror touches the DOM at import time: load it in the browser only.
const CodeMirror = dynamic(() => import('@uiw/react-codemirror'), { ssr: false, loading: () => <div style={{ minHeight: 320 }} className="muted small">Loading editor…</div> });

/** The SQL / YAML editor of the Models page (CodeMirror 6). */
export function SqlEditor({ value, onChange, readOnly, language }: { value: string; onChange: (v: string) => void; readOnly: boolean; language: 'sql' | 'yaml' }) {
  return (
    <div data-testid="model-editor">
      <CodeMirror
        value={value}
        onChange={onChange}
        readOnly={readOnly}
        editable={!readOnly}
        minHeight="320px"
        maxHeight="560px"
        extensions={language === 'sql' ? [sql({ dialect: StandardSQL })] : [yaml()]}
        basicSetup={{ lineNumbers: true, foldGutter: false, highlightActiveLine: !readOnly }}
      />
    </div>
  );
}
