import { z } from 'zod';

/** A pipeline as the API and the run forms' "save as pipeline" send it. Pure zod. */
export const PipelineInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only'),
  description: z.string().max(2000).default(''),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
  /** A registered job kind (`etl.run`, `dq.run`, `slices.run`, `models.build`…). */
  kind: z.string().min(1).max(100),
  /** Its payload, validated by the kind's schema. (Default: {}) */
  params: z.record(z.string(), z.unknown()).default({}),
});
export type PipelineInput = z.input<typeof PipelineInputSchema>;
export const PipelinePatchSchema = PipelineInputSchema.partial().strict();
