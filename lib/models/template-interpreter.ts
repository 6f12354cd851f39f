import { FILTERS, ReturnSignal, TESTS, contains, getAttr, globals, iterate } from './template-builtins';
import { Budget, Dict, Fn, Namespace, Obj, TemplateError, Undef, equal, str, truthy, typeName, undefinedError, type TemplateLimits, type Value } from './template-values';

/**
 * A Jinja interpreter over the tree @huggingface/jinja's parser builds. It
 * evaluates into its own values (template-values.ts) and calls only its own
 * functions, so a template has no path to a host object, whatever names it
 * uses: `{% set __proto__ = x %}` sets a key named `__proto__` in a Map.
 * Every evaluation counts against a Budget (steps, loop iterations, string
 * and list sizes, call depth), so a hostile template ends with an error in
 * bounded time and memory.
 */

/* The parser's nodes, read structurally (the package does not export its AST types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = { type: string } & Record<string, any>;

const hintOf = (label: string) => label.split('.').pop()!.replace(/\(\)$/, '');

class BreakSignal {}
class ContinueSignal {}

export class Scope {
  readonly vars = new Map<string, Value>();
  constructor(readonly parent?: Scope) {}
  lookup(name: string): Value | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name);
    return undefined;
  }
  set(name: string, v: Value): void { this.vars.set(name, v); }
}

export class Interpreter {
  readonly budget: Budget;
  private callDepth = 0;
  private nesting = 0;
  constructor(limits: TemplateLimits) { this.budget = new Budget(limits); }

  /** A scope holding the globals (range, cycler, joiner, namespace, …). */
  globalScope(): Scope {
    const s = new Scope();
    for (const [k, v] of globals(this.budget)) s.set(k, v);
    return s;
  }

  render(program: Node, scope: Scope): string {
    try { return this.block(program.body, scope); } catch (e) {
      if (e instanceof BreakSignal || e instanceof ContinueSignal) throw new TemplateError('break/continue outside a for loop');
      if (e instanceof ReturnSignal) throw new TemplateError('return() outside a macro');
      if (e instanceof RangeError) throw new TemplateError(`the template is nested too deeply (${e.message})`);
      throw e;
    }
  }

  private enter(): void {
    this.budget.step();
    if (++this.nesting > this.budget.limits.maxNesting) throw new TemplateError(`the template nests more than ${this.budget.limits.maxNesting} levels deep`);
  }

  private block(stmts: Node[], scope: Scope): string {
    const parts: string[] = [];
    let len = 0;
    for (const s of stmts) {
      const out = this.exec(s, scope);
      if (out) {
        len += out.length;
        if (len > this.budget.limits.maxString) this.budget.chars(len);
        parts.push(out);
      }
    }
    if (parts.length <= 1) return parts[0] ?? '';
    this.budget.chars(len);
    return parts.join('');
  }

  private exec(n: Node, scope: Scope): string {
    this.enter();
    try {
      switch (n.type) {
        case 'Program': return this.block(n.body, scope);
        case 'Comment': return '';
        case 'Set': {
          const v = n.value ? this.eval(n.value, scope) : this.block(n.body, new Scope(scope));
          this.assign(n.assignee, v, scope);
          return '';
        }
        case 'If': return this.block(truthy(this.eval(n.test, scope)) ? n.body : n.alternate, scope);
        case 'For': return this.forLoop(n, scope);
        case 'Macro': scope.set(n.name.value, this.macro(n.name.value, n.args, n.body, scope)); return '';
        case 'CallStatement': {
          const callee = this.eval(n.call.callee, scope);
          const [args, kw] = this.args(n.call.args, scope);
          const params: Node[] = n.callerArgs ?? [];
          const caller = new Fn('caller', (a, k) => {
            const s = new Scope(scope);
            this.bind(params, a, k, s);
            return this.block(n.body, s);
          }, 'macro');
          return str(this.call(callee, args, kw, this.label(n.call.callee), caller), this.budget);
        }
        case 'FilterStatement': return str(this.filter(this.block(n.body, scope), n.filter, scope), this.budget);
        case 'Break': throw new BreakSignal();
        case 'Continue': throw new ContinueSignal();
        default: return str(this.eval(n, scope), this.budget);
      }
    } finally { this.nesting--; }
  }

  private assign(target: Node, v: Value, scope: Scope): void {
    if (target.type === 'Identifier') { scope.set(target.value, v); return; }
    if (target.type === 'TupleLiteral') {
      const items = iterate(v, 'set', this.budget);
      if (items.length !== target.value.length) throw new TemplateError(`set: ${target.value.length} names for ${items.length} values`);
      target.value.forEach((t: Node, i: number) => this.assign(t, items[i], scope));
      return;
    }
    if (target.type === 'MemberExpression' && !target.computed && target.property.type === 'Identifier') {
      const obj = this.eval(target.object, scope);
      if (!(obj instanceof Namespace)) throw new TemplateError(`set: only a namespace() takes attributes (${this.label(target.object)} is a ${typeName(obj)})`);
      obj.m.set(target.property.value, v);
      return;
    }
    throw new TemplateError('set: cannot assign to this expression');
  }

  private forLoop(n: Node, scope: Scope): string {
    const select = n.iterable.type === 'SelectExpression' ? n.iterable : null;
    const source = iterate(this.eval(select ? select.lhs : n.iterable, scope), `for ${this.label(select ? select.lhs : n.iterable)}`, this.budget);
    let items = source;
    if (select) {
      items = source.filter((item) => { this.budget.iterate(); const s = new Scope(scope); this.assign(n.loopvar, item, s); return truthy(this.eval(select.test, s)); });
    }
    if (!items.length) return this.block(n.defaultBlock, scope);
    const parts: string[] = [];
    let len = 0;
    for (let i = 0; i < items.length; i++) {
      this.budget.iterate();
      const s = new Scope(scope);
      this.assign(n.loopvar, items[i], s);
      s.set('loop', loopObject(i, items));
      try {
        const out = this.block(n.body, s);
        len += out.length;
        if (len > this.budget.limits.maxString) this.budget.chars(len);
        parts.push(out);
      } catch (e) {
        if (e instanceof ContinueSignal) continue;
        if (e instanceof BreakSignal) break;
        throw e;
      }
    }
    this.budget.chars(len);
    return parts.join('');
  }

  private bind(params: Node[], args: Value[], kw: Map<string, Value>, s: Scope): void {
    const rest = new Map(kw);
    params.forEach((p, i) => {
      const pname: string = p.type === 'Identifier' ? p.value : p.key.value;
      let v: Value | undefined = i < args.length ? args[i] : undefined;
      if (v === undefined && rest.has(pname)) { v = rest.get(pname); rest.delete(pname); }
      if (v === undefined && p.type !== 'Identifier') v = this.eval(p.value, s);
      s.set(pname, v === undefined ? new Undef(pname) : v);
    });
    s.set('varargs', args.slice(params.length));
    s.set('kwargs', new Dict(rest));
  }

  private macro(name: string, params: Node[], body: Node[], defScope: Scope): Fn {
    return new Fn(name, (args, kw, caller) => {
      if (++this.callDepth > this.budget.limits.maxCallDepth) { this.callDepth--; throw new TemplateError(`macro ${name}: calls nest more than ${this.budget.limits.maxCallDepth} deep (runaway recursion?)`, name); }
      try {
        const s = new Scope(defScope);
        this.bind(params, args, kw, s);
        s.set('caller', caller ?? new Undef('caller'));
        try { return this.block(body, s); } catch (e) { if (e instanceof ReturnSignal) return e.value; throw e; }
      } finally { this.callDepth--; }
    }, 'macro');
  }

  private label(n: Node): string {
    if (n.type === 'Identifier') return n.value;
    if (n.type === 'MemberExpression' && !n.computed) return `${this.label(n.object)}.${n.property.value}`;
    if (n.type === 'CallExpression') return `${this.label(n.callee)}()`;
    return 'value';
  }

  private args(nodes: Node[], scope: Scope): [Value[], Map<string, Value>] {
    const args: Value[] = []; const kw = new Map<string, Value>();
    for (const a of nodes) {
      if (a.type === 'KeywordArgumentExpression') kw.set(a.key.value, this.eval(a.value, scope));
      else if (a.type === 'SpreadExpression') { const l = iterate(this.eval(a.argument, scope), '*args', this.budget); this.budget.items(args.length + l.length, 'an argument list'); args.push(...l); }
      else if (a.type === 'KeywordSpreadExpression') {
        const d = this.eval(a.argument, scope);
        if (!(d instanceof Dict)) throw new TemplateError(`**kwargs takes a dict (got ${typeName(d)})`);
        for (const [k, v] of d.m) kw.set(k, v);
      } else args.push(this.eval(a, scope));
    }
    return [args, kw];
  }

  private call(fn: Value, args: Value[], kw: Map<string, Value>, label: string, caller?: Fn): Value {
    if (fn instanceof Undef) throw new TemplateError(`'${label}' is undefined, so it cannot be called`, hintOf(label));
    if (!(fn instanceof Fn)) throw new TemplateError(`'${label}' is a ${typeName(fn)}, not something to call`, hintOf(label));
    return this.charged(fn.call(args, kw, caller));
  }

  /** What a function or filter built is charged to the budget (a method on a 4 MB string in a long loop). */
  private charged(v: Value): Value {
    if (typeof v === 'string') this.budget.chars(v.length);
    else if (Array.isArray(v)) { this.budget.items(v.length); this.budget.work(v.length); }
    return v;
  }

  private filter(v: Value, f: Node, scope: Scope): Value {
    const name: string = f.type === 'Identifier' ? f.value : f.callee.type === 'Identifier' ? f.callee.value : '?';
    const impl = FILTERS.get(name);
    if (!impl) throw new TemplateError(`no filter named '${name}'`, name);
    const [args, kw] = f.type === 'CallExpression' ? this.args(f.args, scope) : [[], new Map<string, Value>()];
    if (v instanceof Fn || v instanceof Obj) throw new TemplateError(`filter ${name}: cannot take a ${typeName(v)}`, name);
    return this.charged(impl(this.budget, v, args, kw));
  }

  eval(n: Node, scope: Scope): Value {
    this.enter();
    try {
      switch (n.type) {
        case 'IntegerLiteral': case 'FloatLiteral': case 'StringLiteral': return n.value;
        case 'ArrayLiteral': case 'TupleLiteral': { this.budget.items(n.value.length); return n.value.map((x: Node) => this.eval(x, scope)); }
        case 'ObjectLiteral': {
          const m = new Map<string, Value>();
          for (const [k, v] of n.value as Map<Node, Node>) {
            const key = this.eval(k, scope);
            if (typeof key !== 'string' && typeof key !== 'number') throw new TemplateError(`a dict key is a string or a number (got ${typeName(key)})`);
            m.set(String(key), this.eval(v, scope));
          }
          return new Dict(m);
        }
        case 'Identifier': { const v = scope.lookup(n.value); return v === undefined ? new Undef(n.value) : v; }
        case 'MemberExpression': {
          const obj = this.eval(n.object, scope);
          if (n.computed && n.property.type === 'SliceExpression') return this.slice(obj, n.property, scope);
          const key: Value = n.computed ? this.eval(n.property, scope) : n.property.value;
          if (obj instanceof Undef) throw undefinedError(obj);
          return getAttr(this.budget, obj, key, this.label(n.object));
        }
        case 'CallExpression': {
          const fn = this.eval(n.callee, scope);
          const [args, kw] = this.args(n.args, scope);
          return this.call(fn, args, kw, this.label(n.callee));
        }
        case 'UnaryExpression': {
          const v = this.eval(n.argument, scope);
          if (n.operator.value === 'not') return !truthy(v);
          if (typeof v !== 'number' && typeof v !== 'boolean') throw new TemplateError(`unary ${n.operator.value} takes a number (got ${typeName(v)})`);
          return n.operator.value === '-' ? -Number(v) : Number(v);
        }
        case 'BinaryExpression': return this.binary(n, scope);
        case 'FilterExpression': return this.filter(this.eval(n.operand, scope), n.filter, scope);
        case 'TestExpression': {
          const t = TESTS.get(n.test.value);
          if (!t) throw new TemplateError(`no test named '${n.test.value}'`, n.test.value);
          const r = t(this.eval(n.operand, scope), [], this.budget);
          return n.negate ? !r : r;
        }
        case 'SelectExpression': return truthy(this.eval(n.test, scope)) ? this.eval(n.lhs, scope) : '';
        case 'Ternary': return truthy(this.eval(n.condition, scope)) ? this.eval(n.trueExpr, scope) : this.eval(n.falseExpr, scope);
        default: throw new TemplateError(`unsupported expression ${n.type}`);
      }
    } finally { this.nesting--; }
  }

  private slice(obj: Value, s: Node, scope: Scope): Value {
    if (obj instanceof Undef) throw undefinedError(obj);
    if (typeof obj !== 'string' && !Array.isArray(obj)) throw new TemplateError(`cannot slice a ${typeName(obj)}`);
    const num = (x: Node | undefined) => { if (!x) return undefined; const v = this.eval(x, scope); if (v === null) return undefined; if (typeof v !== 'number') throw new TemplateError('slice bounds are numbers'); return Math.trunc(v); };
    const items = typeof obj === 'string' ? [...obj] : obj;
    const len = items.length; const step = num(s.step) ?? 1;
    if (step === 0) throw new TemplateError('slice step must not be zero');
    const norm = (i: number | undefined, d: number) => (i === undefined ? d : i < 0 ? Math.max(i + len, step < 0 ? -1 : 0) : Math.min(i, step < 0 ? len - 1 : len));
    const start = norm(num(s.start), step < 0 ? len - 1 : 0); const stop = norm(num(s.stop), step < 0 ? -1 : len);
    const out: Value[] = [];
    for (let i = start; step > 0 ? i < stop : i > stop; i += step) { this.budget.step(); out.push(items[i]); }
    return typeof obj === 'string' ? out.join('') : out;
  }

  private binary(n: Node, scope: Scope): Value {
    const op: string = n.operator.value;
    const l = this.eval(n.left, scope);
    if (op === 'and') return truthy(l) ? this.eval(n.right, scope) : l;
    if (op === 'or') return truthy(l) ? l : this.eval(n.right, scope);
    const r = this.eval(n.right, scope);
    const b = this.budget;
    switch (op) {
      case '==': return equal(l, r, b);
      case '!=': return !equal(l, r, b);
      case 'in': return contains(r, l, b);
      case 'not in': return !contains(r, l, b);
      case '~': { const a = str(l, b); const c = str(r, b); b.chars(a.length + c.length); return a + c; }
    }
    if (l instanceof Undef) throw undefinedError(l);
    if (r instanceof Undef) throw undefinedError(r);
    const isNum = (x: Value): x is number | boolean => typeof x === 'number' || typeof x === 'boolean';
    if (isNum(l) && isNum(r)) {
      const a = Number(l); const c = Number(r);
      switch (op) {
        case '+': return a + c;
        case '-': return a - c;
        case '*': return a * c;
        case '/': if (c === 0) throw new TemplateError('division by zero'); return a / c;
        case '//': if (c === 0) throw new TemplateError('division by zero'); return Math.floor(a / c);
        case '%': if (c === 0) throw new TemplateError('modulo by zero'); return ((a % c) + c) % c;
        case '**': return a ** c;
        case '<': return a < c;
        case '>': return a > c;
        case '<=': return a <= c;
        case '>=': return a >= c;
      }
    }
    if (typeof l === 'string' && typeof r === 'string') {
      switch (op) {
        case '+': b.chars(l.length + r.length); return l + r;
        case '<': return l < r;
        case '>': return l > r;
        case '<=': return l <= r;
        case '>=': return l >= r;
      }
    }
    if (op === '+' && Array.isArray(l) && Array.isArray(r)) { b.items(l.length + r.length); return [...l, ...r]; }
    if (op === '*' && (typeof l === 'string' || Array.isArray(l)) && typeof r === 'number') {
      const times = Math.max(0, Math.trunc(r));
      if (typeof l === 'string') { b.chars(l.length * times); return l.repeat(times); }
      b.items(l.length * times);
      return Array.from({ length: times }, () => l).flat(1) as Value[];
    }
    throw new TemplateError(`cannot apply ${op} to a ${typeName(l)} and a ${typeName(r)}`);
  }
}

function loopObject(i: number, items: Value[]): Obj {
  return new Obj('loop', (key) => {
    switch (key) {
      case 'index': return i + 1;
      case 'index0': return i;
      case 'revindex': return items.length - i;
      case 'revindex0': return items.length - i - 1;
      case 'first': return i === 0;
      case 'last': return i === items.length - 1;
      case 'length': return items.length;
      case 'depth': return 1;
      case 'depth0': return 0;
      case 'previtem': return i > 0 ? items[i - 1] : new Undef('loop.previtem');
      case 'nextitem': return i < items.length - 1 ? items[i + 1] : new Undef('loop.nextitem');
      case 'cycle': return new Fn('loop.cycle', (a) => { if (!a.length) throw new TemplateError('loop.cycle() needs at least one item'); return a[i % a.length]; });
      default: return undefined;
    }
  });
}
