import { AppError } from '../errors';
/**
 * Flow graphs: a node runs after every node with an edge into it. Pure
 * functions over ids; validation of what a node runs lives in validate.ts.
 */
export interface DagEdge { from: string; to: string }

export interface DagProblem { field: string; message: string }

/** Parents of each node (the nodes it runs after), in edge order. */
export function parentsOf(nodeIds: string[], edges: DagEdge[]): Map<string, string[]> {
  const m = new Map(nodeIds.map((id) => [id, [] as string[]]));
  for (const e of edges) {
    const p = m.get(e.to);
    if (p && !p.includes(e.from)) p.push(e.from);
  }
  return m;
}

/** Children of each node. */
export function childrenOf(nodeIds: string[], edges: DagEdge[]): Map<string, string[]> {
  const m = new Map(nodeIds.map((id) => [id, [] as string[]]));
  for (const e of edges) {
    const c = m.get(e.from);
    if (c && !c.includes(e.to)) c.push(e.to);
  }
  return m;
}

/**
 * One cycle as a closed path of node ids (`['a', 'b', 'c', 'a']`), or null
 * when the graph is acyclic. Depth-first search with colours; the first back
 * edge found closes the reported cycle.
 */
export function findCycle(nodeIds: string[], edges: DagEdge[]): string[] | null {
  const children = childrenOf(nodeIds, edges);
  const colour = new Map<string, 0 | 1 | 2>(nodeIds.map((id) => [id, 0]));
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    colour.set(id, 1);
    stack.push(id);
    for (const c of children.get(id) ?? []) {
      if (colour.get(c) === 1) return [...stack.slice(stack.indexOf(c)), c];
      if (colour.get(c) === 0) {
        const found = visit(c);
        if (found) return found;
      }
    }
    stack.pop();
    colour.set(id, 2);
    return null;
  };
  for (const id of nodeIds) {
    if (colour.get(id) === 0) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Nodes in an order where every node comes after its parents (Kahn's
 * algorithm; ties keep the declared order, so the result is stable).
 * Throws when the graph has a cycle.
 */
export function topologicalOrder(nodeIds: string[], edges: DagEdge[]): string[] {
  const parents = parentsOf(nodeIds, edges);
  const remaining = new Map([...parents].map(([id, p]) => [id, p.length]));
  const children = childrenOf(nodeIds, edges);
  const out: string[] = [];
  const ready = nodeIds.filter((id) => remaining.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    out.push(id);
    for (const c of children.get(id) ?? []) {
      const left = remaining.get(c)! - 1;
      remaining.set(c, left);
      if (left === 0) ready.splice(insertAt(ready, c, nodeIds), 0, c);
    }
  }
  if (out.length !== nodeIds.length) {
    const cycle = findCycle(nodeIds, edges);
    throw new AppError('validation', `flows: the graph has a cycle: ${cycle?.join(' → ')}`);
  }
  return out;
}

function insertAt(ready: string[], id: string, order: string[]): number {
  const pos = order.indexOf(id);
  const i = ready.findIndex((r) => order.indexOf(r) > pos);
  return i === -1 ? ready.length : i;
}

/**
 * Structural problems: duplicate node ids, edges naming missing nodes
 * (dangling), self-loops, duplicate edges, cycles. Fields name the input
 * (`edges[2].to`, `nodes[1].id`); the cycle names its nodes.
 */
export function checkDag(nodeIds: string[], edges: DagEdge[]): DagProblem | null {
  const seen = new Set<string>();
  for (const [i, id] of nodeIds.entries()) {
    if (seen.has(id)) return { field: `nodes[${i}].id`, message: `duplicate node id '${id}'` };
    seen.add(id);
  }
  const pairs = new Set<string>();
  for (const [i, e] of edges.entries()) {
    if (!seen.has(e.from)) return { field: `edges[${i}].from`, message: `edge ${i} starts at unknown node '${e.from}'` };
    if (!seen.has(e.to)) return { field: `edges[${i}].to`, message: `edge ${i} ends at unknown node '${e.to}'` };
    if (e.from === e.to) return { field: `edges[${i}]`, message: `node '${e.from}' cannot run after itself` };
    const k = `${e.from}\u0000${e.to}`;
    if (pairs.has(k)) return { field: `edges[${i}]`, message: `duplicate edge ${e.from} → ${e.to}` };
    pairs.add(k);
  }
  const cycle = findCycle(nodeIds, edges);
  if (cycle) return { field: 'edges', message: `the flow has a cycle: ${cycle.join(' → ')}` };
  return null;
}

/** Every node downstream of `id` (children, their children, …). */
export function descendantsOf(id: string, nodeIds: string[], edges: DagEdge[]): Set<string> {
  const children = childrenOf(nodeIds, edges);
  const out = new Set<string>();
  const walk = (n: string) => {
    for (const c of children.get(n) ?? []) if (!out.has(c)) { out.add(c); walk(c); }
  };
  walk(id);
  return out;
}
