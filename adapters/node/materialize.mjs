// materialize.mjs: builds a scenario (corpus/README.md, "The scenario
// format") into real JavaScript values: ordinary objects and arrays with
// their prototypes, holes and accessors, functions that record their calls
// and run their effects, proxies with scripted traps, native promises,
// nests, errors and genuine NonRecoverableToolErrors made through the
// implementation's own class, and a second realm for the other-realm
// prototypes.
//
// Every node is built once and named: a node of `nodes` by its key, an inline
// node by the JSON Pointer of its place. The result knows the name of every
// object it built (nameOf), so traces and outcomes can refer to them.
//
// Functions and traps need to know which registration or call they run
// under; `current()` (given by observe.mjs) answers with its context, whose
// record/abort/listen methods do the rest.

import vm from 'node:vm';
import { encodeArg, contextOf } from './encode.mjs';

/** A scenario the adapter cannot build (malformed, or beyond the limits). */
export class ScenarioError extends Error {}

/**
 * A well-formed scenario that JavaScript cannot hold, so the case is
 * skipped: a native promise fulfilled with a value whose `then` lookup
 * throws, runs a trap or a getter, or finds a function (resolving any
 * promise reads `then` and adopts thenables; the reference's heap keeps the
 * value as given).
 */
export class UnrepresentableScenario extends Error {}

const MAX_REPEAT = 2_000_000;
const MAX_STRING_UNITS = 20_000_000;
const MAX_NEST = 2_000_000;
const MAX_LENGTH = 2 ** 32 - 2;

// One other realm for all cases: its prototypes are only compared, never changed.
let otherRealm;
function realm() {
  otherRealm ??= vm.runInNewContext('({ object: Object.prototype, array: Array.prototype })');
  return otherRealm;
}

function builtinPrototype(name, impl, at) {
  switch (name) {
    case 'date': return Date.prototype;
    case 'map': return Map.prototype;
    case 'set': return Set.prototype;
    case 'regExp': return RegExp.prototype;
    case 'booleanBox': return Boolean.prototype;
    case 'numberBox': return Number.prototype;
    case 'stringBox': return String.prototype;
    case 'function': return Function.prototype;
    case 'promise': return Promise.prototype;
    case 'error': return Error.prototype;
    case 'typeError': return TypeError.prototype;
    case 'nonRecoverableToolError': return impl.NonRecoverableToolError.prototype;
    case 'toolContractError': return impl.ToolContractError.prototype;
    default: throw new ScenarioError(`${at}: unknown builtin prototype ${JSON.stringify(name)}`);
  }
}

export function escapePointer(name) {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function only(spec, allowed, at) {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) {
      throw new ScenarioError(`${at}: unknown field \`${key}\` (allowed: ${allowed.join(', ')})`);
    }
  }
}

function isSpecObject(spec) {
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec);
}

function count(value, at, what, max) {
  if (!Number.isInteger(value) || value < 0) {
    throw new ScenarioError(`${at}: \`${what}\` must be a non-negative integer`);
  }
  if (value > max) throw new ScenarioError(`${at}: \`${what}\` ${value} is above the limit ${max}`);
  return value;
}

function fromCodeUnits(units, at) {
  if (!Array.isArray(units)) throw new ScenarioError(`${at}: \`units\` must be an array`);
  for (const u of units) {
    if (!Number.isInteger(u) || u < 0 || u > 0xffff) {
      throw new ScenarioError(`${at}: \`units\` must hold integers 0..65535`);
    }
  }
  let s = '';
  for (let i = 0; i < units.length; i += 8192) {
    s += String.fromCharCode(...units.slice(i, i + 8192));
  }
  return s;
}

const TRAPS = ['getPrototypeOf', 'ownKeys', 'getOwnPropertyDescriptor', 'get'];

const HELD = 'held';
const RETURNED = 'returned';

const lazyRejections = new WeakSet();
// Not `instanceof`: that would run the getPrototypeOf trap of a proxy node.
const isLazy = (value) => lazyRejections.has(value);

/**
 * A rejected promise node. It is created only when first needed: by a
 * function that returns it or calls back with it (so that only a rejection
 * the implementation is responsible for can go unhandled), or, with a no-op
 * handler, where it is held (a property, a slot, a thrown value).
 */
class LazyRejection {
  constructor(built, name, reason) {
    lazyRejections.add(this);
    this.built = built;
    this.name = name;
    this.reason = reason;
    this.promise = undefined;
    this.handled = false;
  }

  materialize(handled) {
    if (this.promise === undefined) {
      this.promise = Promise.reject(this.reason);
      this.built.register(this.name, this.promise);
    }
    if (handled && !this.handled) {
      this.handled = true;
      this.promise.then(undefined, () => {});
    }
    return this.promise;
  }
}

/** The values of one scenario, built. */
// The keys of `repeat` objects, `prefix + i`, made once for the session
// rather than once per case: a wide object of 10^5 keys spent 40% of its
// building making its keys (and V8 internalizing each), case after case.
// The generator's prefix is always "k"; a few others are kept as well,
// each up to a bound (the keys past it are made as they are needed).
const REPEATED_PREFIXES = 4;
const REPEATED_KEYS = 1 << 18;
const repeatKeys = new Map();

/** Key `i` of a `repeat` of `prefix` is `keys[i]` below `keys.length`, `prefix + i` above. */
function repeatedKeys(prefix, n) {
  let keys = repeatKeys.get(prefix);
  if (keys === undefined) {
    keys = [];
    if (repeatKeys.size < REPEATED_PREFIXES) repeatKeys.set(prefix, keys);
  }
  for (let i = keys.length; i < Math.min(n, REPEATED_KEYS); i += 1) keys.push(prefix + i);
  return keys;
}

export class Built {
  constructor(scenario, impl, current) {
    if (!isSpecObject(scenario)) throw new ScenarioError('a scenario is an object');
    only(scenario, ['nodes', 'initial', 'registrations', 'calls', 'concurrent'], 'the scenario');
    this.scenario = scenario;
    this.impl = impl;
    this.current = current;
    this.specs = scenario.nodes ?? {};
    if (!isSpecObject(this.specs)) throw new ScenarioError('/nodes: must be an object');
    this.byName = new Map(); // node name -> value (or LazyRejection)
    this.names = new Map(); // object or function -> node name
    this.nests = []; // {at, levels}: nest levels below the outermost, named lazily
    this.genuine = new Set(); // NonRecoverableToolError nodes
    this.symbols = new Map(); // id -> symbol
    this.symbolIds = new Map(); // symbol -> id
    this.classes = new Map(); // class name -> class
    this.errorClasses = new Map(); // class name -> subclass of NonRecoverableToolError
    this.lateSettlements = new Map(); // pending promise node -> {name, rejected, value}
    this.proxies = new WeakMap(); // proxy node -> {revokedBelow, levels, base}
    this.fulfilments = []; // promises fulfilled once every node is complete

    for (const name of Object.keys(this.specs)) {
      if (name.startsWith('/')) throw new ScenarioError(`/nodes/${escapePointer(name)}: names must not start with '/'`);
    }
    for (const name of Object.keys(this.specs)) this.ref(name, HELD);
    this.hasInitial = Object.hasOwn(scenario, 'initial');
    this.initial = this.hasInitial ? this.value(scenario.initial, '/initial') : undefined;
    const registrations = scenario.registrations ?? [];
    if (!Array.isArray(registrations)) throw new ScenarioError('/registrations: must be an array');
    this.registrations = registrations.map((v, i) => this.value(v, `/registrations/${i}`));
    const calls = scenario.calls ?? [];
    if (!Array.isArray(calls)) throw new ScenarioError('/calls: must be an array');
    this.calls = calls.map((spec, i) => {
      const at = `/calls/${i}`;
      if (!isSpecObject(spec)) throw new ScenarioError(`${at}: a call is an object`);
      only(spec, ['call', 'registry', 'abort'], at);
      if (!Object.hasOwn(spec, 'call')) throw new ScenarioError(`${at}: \`call\` is required`);
      const registry = spec.registry ?? 'real';
      if (registry !== 'real' && registry !== 'notARegistry') {
        throw new ScenarioError(`${at}/registry: must be "real" or "notARegistry"`);
      }
      let abort;
      if (spec.abort !== undefined) {
        if (!isSpecObject(spec.abort)) throw new ScenarioError(`${at}/abort: must be an object`);
        only(spec.abort, ['before', 'whenPending', 'afterTurns'], `${at}/abort`);
        const plans = Object.keys(spec.abort);
        if (plans.length !== 1) throw new ScenarioError(`${at}/abort: one of before, whenPending, afterTurns`);
        const when = plans[0];
        const body = spec.abort[when];
        if (when === 'afterTurns') {
          const where = `${at}/abort/afterTurns`;
          if (!isSpecObject(body)) throw new ScenarioError(`${where}: must be an object`);
          only(body, ['turns', 'reason'], where);
          if (!Number.isSafeInteger(body.turns) || body.turns < 0) {
            throw new ScenarioError(`${where}/turns: a non-negative integer`);
          }
          const reason = Object.hasOwn(body, 'reason') ? { reason: body.reason } : {};
          abort = { when, turns: body.turns, reason: this.reasonSpec(reason, where) };
        } else {
          abort = { when, reason: this.reasonSpec(body, `${at}/abort/${when}`) };
        }
      }
      return { value: this.value(spec.call, `${at}/call`), registry, abort };
    });
    this.concurrent = scenario.concurrent === true;
    // Resolving reads `then`, so values are given to promises once built whole.
    for (const { at, fulfil, value } of this.fulfilments) {
      this.checkInertThen(value, at);
      fulfil(value);
    }
  }

  /**
   * Throws UnrepresentableScenario unless a promise can be fulfilled with
   * `value` as the reference holds it: reading its `then` must run no trap
   * or getter, not throw, and find no function. Runs no scenario code.
   */
  checkInertThen(value, at) {
    const refuse = (why) => {
      throw new UnrepresentableScenario(`${at}: a promise fulfilled with ${why} cannot exist in JavaScript`);
    };
    for (let o = value; (typeof o === 'object' && o !== null) || typeof o === 'function'; ) {
      const proxy = this.proxies.get(o);
      if (proxy !== undefined) {
        if (proxy.revokedBelow) refuse('a revoked proxy, or one over it (reading then throws)');
        if (proxy.levels.some((level) => level.behaviors.has('get'))) {
          refuse('a proxy whose get trap runs when then is read');
        }
        o = proxy.base;
        continue;
      }
      const own = Object.getOwnPropertyDescriptor(o, 'then');
      if (own !== undefined) {
        if (own.get !== undefined) refuse('an object whose then getter runs when it is read');
        if (typeof own.value === 'function') refuse('a thenable (it would be adopted)');
        return;
      }
      o = Object.getPrototypeOf(o);
    }
  }

  /**
   * The instance of a pending promise node with `afterAbort` that one call
   * awaits. The reference's heap never changes, so such a promise is pending
   * for every call until that call aborts; a JavaScript promise settles only
   * once, so each call gets its own, under the node's name.
   */
  pendingFor(ctx, value) {
    const late = this.lateSettlements.get(value);
    if (late === undefined) return value;
    ctx.pendingInstances ??= new Map();
    let instance = ctx.pendingInstances.get(value);
    if (instance === undefined) {
      let settle;
      instance = new Promise((resolve, reject) => {
        settle = () => (late.rejected ? reject(late.value) : resolve(late.value));
      });
      this.names.set(instance, late.name);
      ctx.pendingInstances.set(value, instance);
      ctx.lateSettlementOf ??= new Map();
      ctx.lateSettlementOf.set(instance, { name: late.name, rejected: late.rejected, settle });
    }
    return instance;
  }

  // --- names ---------------------------------------------------------------

  register(name, value) {
    this.byName.set(name, value);
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
      if (!this.names.has(value)) this.names.set(value, name);
    }
  }

  /** The name of a node this scenario built, or undefined. */
  nameOf(value) {
    const name = this.names.get(value);
    if (name !== undefined || this.nests.length === 0) return name;
    // Nest levels are looked up only when needed: a nest may be 2,000,000 deep.
    for (const { at, levels } of this.nests) {
      const level = levels.indexOf(value);
      if (level > 0) return `${at}#${level}`;
    }
    return undefined;
  }

  isNode(value) {
    return this.nameOf(value) !== undefined;
  }

  isGenuine(value) {
    return this.genuine.has(value);
  }

  symbol(id) {
    let s = this.symbols.get(id);
    if (s === undefined) {
      s = Symbol(`scenario symbol ${id}`);
      this.symbols.set(id, s);
      this.symbolIds.set(s, id);
    }
    return s;
  }

  symbolId(s) {
    return this.symbolIds.get(s) ?? 4294967295;
  }

  // --- values --------------------------------------------------------------

  /** A reason of an abort plan or effect: {} or {reason: json}. */
  reasonSpec(spec, at) {
    if (!isSpecObject(spec)) throw new ScenarioError(`${at}: an abort is {} or {"reason": <json>}`);
    only(spec, ['reason'], at);
    return spec;
  }

  value(spec, at, use = HELD) {
    switch (typeof spec) {
      case 'string':
      case 'number':
      case 'boolean':
        return spec;
      case 'object':
        break;
      default:
        throw new ScenarioError(`${at}: not a value`);
    }
    if (spec === null) return null;
    if (Array.isArray(spec)) {
      throw new ScenarioError(`${at}: a value cannot be a JSON array; use {"$": "array", "items": [...]}`);
    }
    if (Object.hasOwn(spec, 'ref')) {
      only(spec, ['ref'], at);
      return this.ref(spec.ref, use);
    }
    switch (spec.$) {
      case 'undefined':
        only(spec, ['$'], at);
        return undefined;
      case 'number':
        only(spec, ['$', 'value'], at);
        switch (spec.value) {
          case 'NaN': return NaN;
          case 'Infinity': return Infinity;
          case '-Infinity': return -Infinity;
          case '-0': return -0;
          default: throw new ScenarioError(`${at}: \`value\` must be NaN, Infinity, -Infinity or -0`);
        }
      case 'bigint':
        return this.bigint(spec, at);
      case 'symbol': {
        only(spec, ['$', 'id'], at);
        const id = spec.id ?? 0;
        count(id, at, 'id', 2 ** 32 - 1);
        return this.symbol(id);
      }
      case 'string':
        return this.string(spec, at);
      case undefined:
        throw new ScenarioError(`${at}: an object value needs \`$\` or \`ref\``);
      default:
        return this.node(spec, at, at, use);
    }
  }

  /** Resolves a stored node for one use: rejected promises are made on demand. */
  resolve(value, use) {
    if (isLazy(value)) return use === HELD ? value.materialize(true) : value;
    return value;
  }

  ref(name, use) {
    if (typeof name !== 'string' || !Object.hasOwn(this.specs, name)) {
      throw new ScenarioError(`no node named ${JSON.stringify(name)}`);
    }
    if (this.byName.has(name)) return this.resolve(this.byName.get(name), use);
    return this.node(this.specs[name], `/nodes/${escapePointer(name)}`, name, use);
  }

  bigint(spec, at) {
    only(spec, ['$', 'decimal', 'pow2', 'negative', 'offset'], at);
    if (Object.hasOwn(spec, 'decimal')) {
      if (typeof spec.decimal !== 'string' || !/^-?[0-9]+$/.test(spec.decimal) || 'pow2' in spec) {
        throw new ScenarioError(`${at}: \`decimal\` must be an optional '-' and digits`);
      }
      return BigInt(spec.decimal);
    }
    const exponent = count(spec.pow2, at, 'pow2', Number.MAX_SAFE_INTEGER);
    const offset = spec.offset ?? 0;
    if (!Number.isInteger(offset)) throw new ScenarioError(`${at}: \`offset\` must be an integer`);
    const power = 1n << BigInt(exponent);
    const k = BigInt(offset);
    if ((k < 0n ? -k : k) >= power) throw new ScenarioError(`${at}: |offset| must be below 2^pow2`);
    const n = power + k;
    return spec.negative === true ? -n : n;
  }

  string(spec, at) {
    if (typeof spec === 'string') return spec;
    if (!isSpecObject(spec)) throw new ScenarioError(`${at}: not a string`);
    only(spec, ['$', 'units', 'repeat', 'times'], at);
    if (Object.hasOwn(spec, 'units')) return fromCodeUnits(spec.units, at);
    if (!Object.hasOwn(spec, 'repeat')) throw new ScenarioError(`${at}: a string needs \`units\` or \`repeat\``);
    const piece = this.string(spec.repeat, `${at}/repeat`);
    const times = count(spec.times, at, 'times', MAX_STRING_UNITS);
    if (piece.length * times > MAX_STRING_UNITS) {
      throw new ScenarioError(`${at}: ${piece.length * times} code units is above the limit`);
    }
    return piece.repeat(times);
  }

  key(spec, at) {
    if (isSpecObject(spec) && Object.hasOwn(spec, 'symbol')) {
      only(spec, ['symbol'], at);
      return this.symbol(count(spec.symbol, at, 'symbol', 2 ** 32 - 1));
    }
    return this.string(spec, at);
  }

  functionValue(spec, at) {
    const f = this.value(spec, at);
    if (typeof f !== 'function') throw new ScenarioError(`${at}: a getter must be a function node`);
    return f;
  }

  prototype(spec, at) {
    if (typeof spec === 'string') {
      switch (spec) {
        case 'object': return Object.prototype;
        case 'array': return Array.prototype;
        case 'null': return null;
        case 'otherRealmObject': return realm().object;
        case 'otherRealmArray': return realm().array;
        default: throw new ScenarioError(`${at}: unknown prototype ${JSON.stringify(spec)}`);
      }
    }
    if (isSpecObject(spec) && Object.hasOwn(spec, 'builtin')) {
      only(spec, ['builtin'], at);
      return builtinPrototype(spec.builtin, this.impl, at);
    }
    if (isSpecObject(spec) && Object.hasOwn(spec, 'class')) {
      only(spec, ['class'], at);
      return this.plainClass(spec.class).prototype;
    }
    const node = this.value(spec, at);
    if (typeof node !== 'object' || node === null) throw new ScenarioError(`${at}: a prototype node must be an object`);
    return node;
  }

  /** Whether a prototype spec is a node (built after the object it is the prototype of). */
  static isNodePrototype(spec) {
    return isSpecObject(spec) && !Object.hasOwn(spec, 'builtin') && !Object.hasOwn(spec, 'class');
  }

  plainClass(name) {
    if (typeof name !== 'string') throw new ScenarioError('`class` must be a string');
    let c = this.classes.get(name);
    if (c === undefined) {
      c = { [name]: class {} }[name];
      this.classes.set(name, c);
    }
    return c;
  }

  errorClass(name) {
    if (typeof name !== 'string') throw new ScenarioError('`class` must be a string');
    let c = this.errorClasses.get(name);
    if (c === undefined) {
      const Base = this.impl.NonRecoverableToolError;
      c = { [name]: class extends Base {} }[name];
      this.errorClasses.set(name, c);
    }
    return c;
  }

  // --- nodes ---------------------------------------------------------------

  node(spec, at, name, use) {
    if (this.byName.has(name)) return this.resolve(this.byName.get(name), use);
    if (!isSpecObject(spec) || typeof spec.$ !== 'string') {
      throw new ScenarioError(`${at}: a node is an object with \`$\``);
    }
    let built;
    switch (spec.$) {
      case 'object': built = this.objectNode(spec, at, name); break;
      case 'array': built = this.arrayNode(spec, at, name); break;
      case 'function': built = this.functionNode(spec, at, name); break;
      case 'proxy': built = this.proxyNode(spec, at, name); break;
      case 'promise': built = this.promiseNode(spec, at, name); break;
      case 'nest': built = this.nestNode(spec, at, name); break;
      case 'error': built = this.errorNode(spec, at, name); break;
      case 'nonRecoverable': built = this.nonRecoverableNode(spec, at, name); break;
      default: throw new ScenarioError(`${at}: unknown node kind ${JSON.stringify(spec.$)}`);
    }
    return this.resolve(built, use);
  }

  define(target, key, value) {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  }

  objectNode(spec, at, name) {
    only(spec, ['$', 'proto', 'props', 'define', 'repeat'], at);
    const nodeProto = spec.proto !== undefined && Built.isNodePrototype(spec.proto);
    const proto = spec.proto === undefined || nodeProto ? Object.prototype : this.prototype(spec.proto, `${at}/proto`);
    const object = Object.create(proto);
    this.register(name, object);
    if (nodeProto) Object.setPrototypeOf(object, this.prototype(spec.proto, `${at}/proto`));
    if (spec.props !== undefined) {
      if (!isSpecObject(spec.props)) throw new ScenarioError(`${at}/props: must be an object`);
      for (const [key, v] of Object.entries(spec.props)) {
        this.define(object, key, this.value(v, `${at}/props/${escapePointer(key)}`));
      }
    }
    if (spec.define !== undefined) {
      if (!Array.isArray(spec.define)) throw new ScenarioError(`${at}/define: must be an array`);
      spec.define.forEach((property, i) => this.property(object, property, `${at}/define/${i}`));
    }
    if (spec.repeat !== undefined) this.repeat(object, spec.repeat, `${at}/repeat`);
    return object;
  }

  property(object, spec, at) {
    if (!isSpecObject(spec)) throw new ScenarioError(`${at}: a property definition is an object`);
    only(spec, ['key', 'value', 'get', 'setterOnly', 'enumerable'], at);
    if (!Object.hasOwn(spec, 'key')) throw new ScenarioError(`${at}: \`key\` is required`);
    const key = this.key(spec.key, `${at}/key`);
    const enumerable = spec.enumerable ?? true;
    const forms = ['value', 'get', 'setterOnly'].filter((f) => Object.hasOwn(spec, f));
    if (forms.length !== 1 || (forms[0] === 'setterOnly' && spec.setterOnly !== true)) {
      throw new ScenarioError(`${at}: a property has exactly one of \`value\`, \`get\`, \`setterOnly: true\``);
    }
    let descriptor;
    if (forms[0] === 'value') {
      descriptor = { value: this.value(spec.value, `${at}/value`), writable: true };
    } else if (forms[0] === 'get') {
      descriptor = { get: this.functionValue(spec.get, `${at}/get`) };
    } else {
      descriptor = { set() {} };
    }
    Object.defineProperty(object, key, { ...descriptor, enumerable, configurable: true });
  }

  repeat(object, spec, at) {
    if (!isSpecObject(spec)) throw new ScenarioError(`${at}: must be an object`);
    only(spec, ['count', 'prefix', 'value', 'enumerable'], at);
    const n = count(spec.count, at, 'count', MAX_REPEAT);
    const prefix = spec.prefix ?? 'k';
    if (typeof prefix !== 'string') throw new ScenarioError(`${at}: \`prefix\` must be a string`);
    const value = this.value(spec.value ?? null, `${at}/value`);
    const enumerable = spec.enumerable ?? true;
    const proto = Object.getPrototypeOf(object);
    const keys = repeatedKeys(prefix, n);
    if (enumerable && (proto === Object.prototype || proto === null)) {
      // No setter on these prototypes: plain assignment defines own data
      // properties, and is much faster for a million of them.
      for (let i = 0; i < n; i += 1) object[i < keys.length ? keys[i] : prefix + i] = value;
    } else {
      const descriptor = { value, writable: true, enumerable, configurable: true };
      for (let i = 0; i < n; i += 1) Object.defineProperty(object, i < keys.length ? keys[i] : prefix + i, descriptor);
    }
  }

  arrayNode(spec, at, name) {
    only(spec, ['$', 'proto', 'items', 'length', 'fill'], at);
    const array = [];
    this.register(name, array);
    if (spec.proto !== undefined) Object.setPrototypeOf(array, this.prototype(spec.proto, `${at}/proto`));
    const proto = Object.getPrototypeOf(array);
    const assignable = proto === Array.prototype || proto === null;
    const setSlot = (index, value) => {
      if (assignable) array[index] = value;
      else this.define(array, String(index), value);
    };
    let next = 0;
    if (spec.items !== undefined) {
      if (!Array.isArray(spec.items)) throw new ScenarioError(`${at}/items: must be an array`);
      spec.items.forEach((item, i) => {
        const iat = `${at}/items/${i}`;
        if (isSpecObject(item) && item.$ === 'hole') {
          only(item, ['$'], iat);
        } else if (isSpecObject(item) && item.$ === 'getter') {
          only(item, ['$', 'get'], iat);
          const descriptor = Object.hasOwn(item, 'get')
            ? { get: this.functionValue(item.get, `${iat}/get`) }
            : { set() {} };
          Object.defineProperty(array, String(i), { ...descriptor, enumerable: true, configurable: true });
        } else {
          setSlot(i, this.value(item, iat));
        }
        next = i + 1;
      });
    }
    if (spec.fill !== undefined) {
      const fat = `${at}/fill`;
      if (!isSpecObject(spec.fill)) throw new ScenarioError(`${fat}: must be an object`);
      only(spec.fill, ['from', 'count', 'value'], fat);
      const from = spec.fill.from === undefined ? next : count(spec.fill.from, fat, 'from', MAX_LENGTH);
      const n = count(spec.fill.count, fat, 'count', MAX_REPEAT);
      if (from + n > MAX_LENGTH + 1) throw new ScenarioError(`${fat}: index above 2^32 - 2`);
      const value = this.value(spec.fill.value ?? null, `${fat}/value`);
      for (let i = from; i < from + n; i += 1) setSlot(i, value);
      next = Math.max(next, from + n);
    }
    const length = spec.length === undefined ? next : count(spec.length, at, 'length', MAX_LENGTH);
    if (next > length) throw new ScenarioError(`${at}: \`length\` is shorter than the items`);
    array.length = length;
    return array;
  }

  functionNode(spec, at, name) {
    only(spec, ['$', 'effects', 'returns', 'throws', 'callsBack'], at);
    const script = { effects: [], completion: { kind: 'returns', value: undefined } };
    const built = this;
    const f = function (...args) {
      return built.invoke(name, script, args);
    };
    this.register(name, f);
    if (spec.effects !== undefined) {
      if (!Array.isArray(spec.effects)) throw new ScenarioError(`${at}/effects: must be an array`);
      script.effects = spec.effects.map((effect, i) => {
        const eat = `${at}/effects/${i}`;
        if (effect === 'listenForAbort') return effect;
        if (isSpecObject(effect) && Object.hasOwn(effect, 'abort')) {
          only(effect, ['abort'], eat);
          return { abort: this.reasonSpec(effect.abort, `${eat}/abort`) };
        }
        throw new ScenarioError(`${eat}: an effect is "listenForAbort" or {"abort": {"reason"?}}`);
      });
    }
    const completions = ['returns', 'throws', 'callsBack'].filter((k) => Object.hasOwn(spec, k));
    if (completions.length > 1) {
      throw new ScenarioError(`${at}: a function has at most one of \`returns\`, \`throws\`, \`callsBack\``);
    }
    if (Object.hasOwn(spec, 'returns')) {
      script.completion = { kind: 'returns', value: this.value(spec.returns, `${at}/returns`, RETURNED) };
    } else if (Object.hasOwn(spec, 'throws')) {
      script.completion = { kind: 'throws', value: this.value(spec.throws, `${at}/throws`) };
    } else if (Object.hasOwn(spec, 'callsBack')) {
      const cb = spec.callsBack;
      if (!isSpecObject(cb)) throw new ScenarioError(`${at}/callsBack: must be an object`);
      only(cb, ['index', 'value'], `${at}/callsBack`);
      if (cb.index !== 0 && cb.index !== 1) throw new ScenarioError(`${at}/callsBack: \`index\` must be 0 or 1`);
      script.completion = {
        kind: 'callsBack',
        index: cb.index,
        value: this.value(cb.value ?? null, `${at}/callsBack/value`, RETURNED),
      };
    }
    return f;
  }

  /**
   * A call of a function node: record it, run its effects, then complete.
   * A pending promise with `afterAbort` that becomes an executor's awaited
   * result (returned by the executor, or passed to resolve by a `then` while
   * the executor's result is awaited) settles when the call's signal aborts.
   */
  invoke(name, script, args) {
    const ctx = this.current();
    ctx.record({ call: name, args: args.map((a) => encodeArg(this, a)) });
    const context = args.length >= 2 ? contextOf(this, args[1]) : undefined;
    if (context !== undefined) ctx.executorStarted = true;
    for (const effect of script.effects) {
      if (effect === 'listenForAbort') ctx.listenForAbort(name, context?.signal);
      else ctx.abort(effect.abort);
    }
    const completion = script.completion;
    const value = isLazy(completion.value)
      ? completion.value.materialize(false)
      : this.pendingFor(ctx, completion.value);
    switch (completion.kind) {
      case 'throws':
        throw value;
      case 'callsBack': {
        if (completion.index === 0 && ctx.executorStarted) this.awaited(ctx, value);
        const callback = args[completion.index];
        Reflect.apply(callback, undefined, [value]);
        return undefined;
      }
      default:
        if (context !== undefined) this.awaited(ctx, value);
        return value;
    }
  }

  awaited(ctx, value) {
    const late = ctx.lateSettlementOf?.get(value);
    if (late !== undefined) ctx.hookLateSettlement(late);
  }

  proxyNode(spec, at, name) {
    only(spec, ['$', 'target', 'traps', 'revoked'], at);
    if (!Object.hasOwn(spec, 'target')) throw new ScenarioError(`${at}: \`target\` is required`);
    const target = this.value(spec.target, `${at}/target`);
    if (typeof target !== 'object' || target === null) {
      throw new ScenarioError(`${at}: a proxy target must be an object, an array or a proxy`);
    }
    // The target may have built this proxy already, through a cycle.
    if (this.byName.has(name)) return this.byName.get(name);
    const traps = spec.traps ?? {};
    if (!isSpecObject(traps)) throw new ScenarioError(`${at}/traps: must be an object`);
    const behaviors = new Map(); // trap -> {throws, thrown} or {reason}
    const thrownSpecs = [];
    for (const [trap, behavior] of Object.entries(traps)) {
      const tat = `${at}/traps/${trap}`;
      if (!TRAPS.includes(trap)) throw new ScenarioError(`${at}: unknown trap ${JSON.stringify(trap)}`);
      if (behavior === 'passThrough') continue;
      if (isSpecObject(behavior) && Object.hasOwn(behavior, 'throw')) {
        only(behavior, ['throw'], tat);
        const scripted = { throws: true, thrown: undefined };
        behaviors.set(trap, scripted);
        thrownSpecs.push([scripted, behavior.throw, `${tat}/throw`]);
      } else if (isSpecObject(behavior) && Object.hasOwn(behavior, 'abort')) {
        only(behavior, ['abort'], tat);
        behaviors.set(trap, { throws: false, reason: this.reasonSpec(behavior.abort, `${tat}/abort`) });
      } else {
        throw new ScenarioError(`${tat}: a trap is "passThrough", {"throw": value} or {"abort": {...}}`);
      }
    }

    // A chain of proxies is built as proxies over the innermost object, whose
    // handler runs the scripted trap of each level, outer first. After a trap
    // returns, JavaScript checks invariants by calling the target's internal
    // method again (ownKeys, getOwnPropertyDescriptor, and
    // getOwnPropertyDescriptor after get): over a real inner proxy, its
    // scripted trap would run twice, where the reference runs each level's
    // trap once. A chain through a revoked proxy stays real: no operation gets
    // past the revoked level, so no trap runs twice.
    const level = { name, behaviors };
    const inner = this.proxies.get(target);
    const revoked = spec.revoked === true;
    let proxy;
    let chain;
    if (revoked) {
      const revocable = Proxy.revocable(target, {});
      revocable.revoke();
      proxy = revocable.proxy;
    } else if (inner === undefined || !inner.revokedBelow) {
      chain = inner === undefined ? { levels: [level], base: target } : { levels: [level, ...inner.levels], base: inner.base };
      proxy = new Proxy(chain.base, this.chainHandler(chain));
    } else {
      proxy = new Proxy(target, this.chainHandler({ levels: [level], base: target }));
    }
    this.register(name, proxy);
    this.proxies.set(proxy, chain === undefined ? { revokedBelow: true } : { revokedBelow: false, ...chain });
    for (const [scripted, thrownSpec, tat] of thrownSpecs) scripted.thrown = this.value(thrownSpec, tat);
    return proxy;
  }

  /** The handler of a chain of proxy levels (outer first) over `base`. */
  chainHandler({ levels, base }) {
    const handler = {};
    for (const trap of TRAPS) {
      if (!levels.some((level) => level.behaviors.has(trap))) continue;
      handler[trap] = (target, ...rest) => {
        const ctx = this.current();
        for (const level of levels) {
          const behavior = level.behaviors.get(trap);
          if (behavior === undefined) continue;
          ctx.record({ trap, proxy: level.name });
          if (behavior.throws) throw behavior.thrown;
          ctx.abort(behavior.reason);
        }
        return Reflect[trap](base, ...rest);
      };
    }
    return handler;
  }


  promiseNode(spec, at, name) {
    only(spec, ['$', 'fulfilled', 'rejected', 'pending', 'afterAbort'], at);
    const forms = ['fulfilled', 'rejected', 'pending'].filter((k) => Object.hasOwn(spec, k));
    if (forms.length !== 1) throw new ScenarioError(`${at}: a promise is \`fulfilled\`, \`rejected\` or \`pending: true\``);
    if (spec.afterAbort !== undefined && forms[0] !== 'pending') {
      throw new ScenarioError(`${at}: only a pending promise has \`afterAbort\``);
    }
    if (forms[0] === 'rejected') {
      const lazy = new LazyRejection(this, name, undefined);
      this.byName.set(name, lazy);
      lazy.reason = this.value(spec.rejected, `${at}/rejected`);
      return lazy;
    }
    if (forms[0] === 'fulfilled') {
      let fulfil;
      const promise = new Promise((resolve) => {
        fulfil = resolve;
      });
      this.register(name, promise);
      this.fulfilments.push({ at, fulfil, value: this.value(spec.fulfilled, `${at}/fulfilled`) });
      return promise;
    }
    if (spec.pending !== true) throw new ScenarioError(`${at}: \`pending\` must be true`);
    const promise = new Promise(() => {});
    this.register(name, promise);
    if (spec.afterAbort !== undefined) {
      const after = spec.afterAbort;
      if (!isSpecObject(after)) throw new ScenarioError(`${at}/afterAbort: must be an object`);
      only(after, ['fulfill', 'reject'], `${at}/afterAbort`);
      const kinds = Object.keys(after);
      if (kinds.length !== 1) throw new ScenarioError(`${at}/afterAbort: {"fulfill": v} or {"reject": v}`);
      const rejected = kinds[0] === 'reject';
      const value = this.value(after[kinds[0]], `${at}/afterAbort/${kinds[0]}`);
      if (!rejected) this.fulfilments.push({ at: `${at}/afterAbort/fulfill`, fulfil: () => {}, value });
      this.lateSettlements.set(promise, { name, rejected, value });
    }
    return promise;
  }

  nestNode(spec, at, name) {
    only(spec, ['$', 'depth', 'kind', 'key', 'inner'], at);
    const depth = count(spec.depth, at, 'depth', MAX_NEST);
    if (depth < 1) throw new ScenarioError(`${at}: \`depth\` must be at least 1`);
    const kind = spec.kind ?? 'object';
    if (kind !== 'object' && kind !== 'array') throw new ScenarioError(`${at}: \`kind\` must be object or array`);
    const key = kind === 'array' ? 0 : (spec.key ?? 'a');
    if (typeof key !== 'string' && kind === 'object') throw new ScenarioError(`${at}: \`key\` must be a string`);
    const levels = new Array(depth);
    for (let level = 0; level < depth; level += 1) levels[level] = kind === 'array' ? [] : {};
    this.register(name, levels[0]);
    if (depth > 1) this.nests.push({ at, levels });
    // Assignment is fast for a million levels; `__proto__` would set the prototype.
    const link = key === '__proto__' ? (o, v) => this.define(o, key, v) : (o, v) => (o[key] = v);
    for (let level = 0; level + 1 < depth; level += 1) link(levels[level], levels[level + 1]);
    if (Object.hasOwn(spec, 'inner')) {
      const inner = this.value(spec.inner, `${at}/inner`);
      link(levels[depth - 1], inner);
    }
    return levels[0];
  }

  errorNode(spec, at, name) {
    only(spec, ['$', 'class', 'message'], at);
    const error = Object.create(builtinPrototype(spec.class ?? 'error', this.impl, `${at}/class`));
    this.register(name, error);
    if (Object.hasOwn(spec, 'message')) {
      Object.defineProperty(error, 'message', {
        value: this.value(spec.message, `${at}/message`),
        writable: true,
        enumerable: false,
        configurable: true,
      });
    }
    return error;
  }

  nonRecoverableNode(spec, at, name) {
    only(spec, ['$', 'message', 'proto'], at);
    const args = Object.hasOwn(spec, 'message') ? [this.value(spec.message, `${at}/message`)] : [];
    // The message may have built this node already, through a cycle.
    if (this.byName.has(name)) return this.byName.get(name);
    const proto = spec.proto;
    const subclass = isSpecObject(proto) && Object.hasOwn(proto, 'class');
    if (subclass) only(proto, ['class'], `${at}/proto`);
    const Class = subclass ? this.errorClass(proto.class) : this.impl.NonRecoverableToolError;
    const error = new Class(...args);
    this.register(name, error);
    this.genuine.add(error);
    if (proto !== undefined && !subclass) {
      Object.setPrototypeOf(error, this.prototype(proto, `${at}/proto`));
    }
    return error;
  }
}
