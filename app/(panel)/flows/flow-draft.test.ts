// The flow editor's state changes, without React: what marks a draft unsaved,
// what a load replaces, and the definition the API is sent.
import { describe, expect, it } from 'vitest';
import { EMPTY, definitionOf, draftReducer, initialDraft, type Draft, type FlowDoc } from './flow-draft';

const FLOW: FlowDoc = {
  ...EMPTY, id: 'f1', name: ' nightly ', cron: ' 0 2 * * * ', timezone: '',
  nodes: [{ id: 'a', pipeline: 'p1' }, { id: 'b', kind: 'system.check', params: {} }], edges: [{ from: 'a', to: 'b' }],
  alerts: { ...EMPTY.alerts, recipients: ['ops@x.test', 'dev@x.test'], webhooks: ['slack'] },
};
const loaded = (): Draft => draftReducer(initialDraft(true), { type: 'load', doc: FLOW, pipelines: [{ id: 'id-1', name: 'p1', kind: 'etl.run' }] });

describe('draftReducer', () => {
  it('a new flow starts empty; an edited one waits for its load', () => {
    expect(initialDraft(false).doc).toEqual(EMPTY);
    expect(initialDraft(true).doc).toBeNull();
  });
  it('a load lays out nodes without positions and fills the alert lists as typed', () => {
    const d = loaded();
    expect(d.nodes.map((n) => [n.id, n.data.sub])).toEqual([['a', 'pipeline p1'], ['b', 'system.check']]);
    expect(d.nodes[0].position.x).not.toBe(d.nodes[1].position.x);
    expect(d.edges).toEqual([{ id: 'a->b', source: 'a', target: 'b' }]);
    expect(d).toMatchObject({ recipients: 'ops@x.test, dev@x.test', webhooks: 'slack', saved: false });
  });
  const edits: [string, Parameters<typeof draftReducer>[1], boolean][] = [
    ['a field', { type: 'patch', patch: { name: 'x' } }, false],
    ['an alert setting', { type: 'alerts', patch: { onSuccess: true } }, false],
    ['the recipients', { type: 'list', field: 'recipients', value: 'a@b.test' }, false],
    ['an added node', { type: 'nodes', edit: true, update: (ns) => ns.slice(0, 1) }, false],
    ['a selection or drag', { type: 'nodes', update: (ns) => ns.map((n) => ({ ...n, selected: true })) }, true],
    ['an auto-layout', { type: 'laidOut' }, true],
  ];
  for (const [what, action, stillSaved] of edits) {
    it(`${what} ${stillSaved ? 'keeps' : 'clears'} "saved"`, () => {
      const saved = draftReducer(loaded(), { type: 'saved' });
      expect(saved.saved).toBe(true);
      expect(draftReducer(saved, action).saved).toBe(stillSaved);
    });
  }
  it('an auto-layout counts, so the graph fits its view again', () => {
    expect(draftReducer(loaded(), { type: 'laidOut' }).layouts).toBe(1);
  });
  it('the definition trims, defaults the zone, rounds positions and splits the lists', () => {
    const d = draftReducer(draftReducer(loaded(), { type: 'nodes', update: (ns) => ns.map((n) => ({ ...n, position: { x: 10.4, y: 20.6 } })) }),
      { type: 'list', field: 'recipients', value: 'a@x.test,  b@x.test c@x.test' });
    const def = definitionOf({ ...d, doc: d.doc! });
    expect(def).toMatchObject({ name: 'nightly', cron: '0 2 * * *', timezone: 'UTC', edges: [{ from: 'a', to: 'b' }] });
    expect(def.nodes[0]).toEqual({ id: 'a', pipeline: 'p1', position: { x: 10, y: 21 } });
    expect(def.alerts).toMatchObject({ recipients: ['a@x.test', 'b@x.test', 'c@x.test'], webhooks: ['slack'] });
  });
});
