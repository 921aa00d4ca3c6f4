/*
 * The Fastify instance routes are registered on, API routes and the platform's own alike: here,
 * below every routing module, so that auth and delivery need not import the plug-in point
 * (module.ts re-exports it for the API modules).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/**
 * The Fastify instance an API registers its routes on: route schemas are TypeBox schemas, so a
 * handler's request (body, params, query, headers) is typed from the very schema Ajv checks.
 */
export type ApiApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;
