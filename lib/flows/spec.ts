import { z } from 'zod';

/**
 * The flow definition as the API, the JSON editor and `tributary flows
 * validate FILE.json` take it. Pure zod: safe in the browser. What a node
 * runs is checked against its job kind's own schema in validate.ts.
 */
export const NODE_ID = /^[A-Za-z0-9_.-]{1,64}$/;

export const FlowNodeSchema = z.strictObject({
  /** Unique within the flow; edges name it. */
  id: z.string().regex(NODE_ID, 'letters, digits, _ . - only (1–64)'),
  /** Shown in the editor and the mail. (Default: the pipeline's name, or the kind) */
  label: z.string().max(200).optional(),
  /** A pipeline of the library, by name or id. */
  pipeline: z.string().min(1).max(200).optional(),
  /** An inline job spec: any registered job kind… */
  kind: z.string().min(1).max(100).optional(),
  /** …and its payload, validated by that kind's schema. (Default: {}) */
  params: z.record(z.string(), z.unknown()).optional(),
  /** Where the editor draws it. (Default: laid out automatically) */
  position: z.object({ x: z.number().finite(), y: z.number().finite() }).optional(),
});
export type FlowNodeInput = z.infer<typeof FlowNodeSchema>;

export const FlowEdgeSchema = z.strictObject({ from: z.string().min(1), to: z.string().min(1) });

const email = z.string().trim().email('not an e-mail address');

export const FlowAlertsSchema = z.strictObject({
  /** Mail when a run fails. (Default: true) */
  onFailure: z.boolean().default(true),
  /** Mail when a run succeeds. (Default: false) */
  onSuccess: z.boolean().default(false),
  /** Mail once when a run is still going after this many minutes. (Default: off) */
  longRunningMinutes: z.number().int().min(1).max(10_080).nullable().default(null),
  /** Who gets the mail. (Default: nobody — no mail is sent) */
  recipients: z.array(email).max(50).default([]),
  /** The SMTP connection to send through, by name. (Default: the first smtp connection) */
  connection: z.string().min(1).max(100).nullable().default(null),
  /** Webhook connections (kind webhook) that get the same alerts, by name. (Default: none) */
  webhooks: z.array(z.string().min(1).max(100)).max(10).default([]),
});

export const FlowInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only'),
  description: z.string().max(2000).default(''),
  nodes: z.array(FlowNodeSchema).min(1, 'a flow needs at least one node').max(200),
  edges: z.array(FlowEdgeSchema).max(1000).default([]),
  /** 5-field cron expression; null = no schedule (run by hand only). (Default: null) */
  cron: z.string().trim().max(200).nullable().default(null),
  /** IANA zone the cron expression is read in. (Default: UTC) */
  timezone: z.string().trim().min(1).max(100).default('UTC'),
  /** Paused flows do not fire. (Default: true) */
  enabled: z.boolean().default(true),
  /** A fire missed while no scheduler ran: skip it, or run once for the latest. (Default: skip) */
  catchup: z.enum(['skip', 'once']).default('skip'),
  /** A fire while the last run still goes: skip it, or queue one run. (Default: skip) */
  overlap: z.enum(['skip', 'queue']).default('skip'),
  /** Nodes of one run that run at once. (Default: 4) */
  maxParallel: z.number().int().min(1).max(64).default(4),
  alerts: FlowAlertsSchema.default({ onFailure: true, onSuccess: false, longRunningMinutes: null, recipients: [], connection: null, webhooks: [] }),
});
export type FlowInput = z.input<typeof FlowInputSchema>;
export type FlowDefinition = z.infer<typeof FlowInputSchema>;

/** A change to a flow: any subset of the definition. */
export const FlowPatchSchema = FlowInputSchema.partial().extend({
  alerts: FlowAlertsSchema.partial().optional(),
}).strict();
export type FlowPatch = z.input<typeof FlowPatchSchema>;

