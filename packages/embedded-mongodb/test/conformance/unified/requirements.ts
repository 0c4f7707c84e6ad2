import type { Document } from 'bson';
import type { Operation, RunOnRequirement, SpecFile, SpecTest } from './spec-files';

/** What the server under test is, as runOnRequirements need it. */
export interface ServerFacts {
  readonly version: readonly number[];
  /** 'single' | 'replicaset' | 'sharded' | 'load-balanced' */
  readonly topology: string;
}

function parseVersion(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

/** Why one requirement is not met by the server, or undefined when it is. */
function unmetBecause(requirement: RunOnRequirement, server: ServerFacts): string | undefined {
  const shown = server.version.join('.');
  if (requirement.minServerVersion && compareVersions(server.version, parseVersion(requirement.minServerVersion)) < 0) {
    return `needs server >= ${requirement.minServerVersion}, server is ${shown}`;
  }
  if (requirement.maxServerVersion && compareVersions(server.version, parseVersion(requirement.maxServerVersion)) > 0) {
    return `needs server <= ${requirement.maxServerVersion}, server is ${shown}`;
  }
  const topologies = requirement.topologies;
  if (
    topologies &&
    !topologies.includes(server.topology) &&
    !(server.topology === 'sharded' && topologies.includes('sharded-replicaset'))
  ) {
    return `needs topology ${topologies.join('/')}, server is ${server.topology}`;
  }
  if (requirement.serverless === 'require') return 'needs a serverless deployment';
  if (requirement.serverParameters) return 'needs specific server parameters';
  if (requirement.auth === true) return 'needs authentication';
  if (requirement.csfle === true) return 'needs client-side field level encryption';
  return undefined;
}

/** The reason a set of requirements (any one suffices) is unmet, or undefined. */
export function unmetRequirements(
  requirements: readonly RunOnRequirement[] | undefined,
  server: ServerFacts,
): string | undefined {
  if (!requirements || requirements.length === 0) return undefined;
  const reasons = requirements.map((r) => unmetBecause(r, server));
  return reasons.every((reason) => reason !== undefined) ? `runOnRequirements: ${reasons.join('; or ')}` : undefined;
}

const FAIL_POINT_OPERATIONS = new Set(['failPoint', 'targetedFailPoint']);
const SESSION_OPERATIONS = new Set([
  'startTransaction',
  'commitTransaction',
  'abortTransaction',
  'withTransaction',
  'endSession',
  'assertSessionTransactionState',
  'assertSessionPinned',
  'assertSessionUnpinned',
  'assertSameLsidOnLastTwoCommands',
  'assertDifferentLsidOnLastTwoCommands',
  'assertSessionDirty',
  'assertSessionNotDirty',
]);

function mentionsRawData(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mentionsRawData);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value as Document).some(([key, inner]) => key === 'rawData' || mentionsRawData(inner));
}

/** Features the store does not claim: fail points, sessions/transactions, rawData. */
export function unsupportedFeature(file: SpecFile, test: SpecTest): string | undefined {
  if (file.createEntities?.some((entity) => 'session' in entity)) return 'needs sessions (session entities)';
  const operations: readonly Operation[] = test.operations;
  if (operations.some((op) => FAIL_POINT_OPERATIONS.has(op.name))) return 'needs fail points';
  if (operations.some((op) => SESSION_OPERATIONS.has(op.name) || (op.arguments && 'session' in op.arguments))) {
    return 'needs sessions/transactions';
  }
  if (operations.some((op) => mentionsRawData(op.arguments))) return 'needs rawData';
  return undefined;
}

/** Why a test must be skipped, or undefined to run it. */
export function skipReason(file: SpecFile, test: SpecTest, server: ServerFacts): string | undefined {
  return (
    unmetRequirements(file.runOnRequirements, server) ??
    (test.skipReason ? `skipReason: ${test.skipReason}` : undefined) ??
    unmetRequirements(test.runOnRequirements, server) ??
    unsupportedFeature(file, test)
  );
}
