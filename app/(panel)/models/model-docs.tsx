import css from './models.module.css';
import type { ProjectModel } from './types';

/** A model's description and column docs from schema.yml (doc() blocks already rendered by the server); nothing when it has none. */
export function ModelDocs({ model }: { model: Pick<ProjectModel, 'description' | 'columns'> }) {
  const described = model.columns?.filter((c) => c.description || c.data_type) ?? [];
  if (!model.description && !described.length) return null;
  return (
    <div className={css.docs} data-testid="model-docs">
      {model.description && <p className={css.docsText} data-testid="model-description">{model.description}</p>}
      {described.length > 0 && (
        <table className="table small" data-testid="model-columns">
          <thead><tr><th>Column</th><th>Type</th><th>Description</th></tr></thead>
          <tbody>{described.map((c) => <tr key={c.name}><td className="mono">{c.name}</td><td className="mono">{c.data_type ?? ''}</td><td className={css.docsText}>{c.description ?? ''}</td></tr>)}</tbody>
        </table>
      )}
    </div>
  );
}
