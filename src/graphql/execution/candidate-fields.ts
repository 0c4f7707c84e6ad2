import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo } from 'graphql';
import { selectedFieldNodes } from '../selections';
import { Candidate } from '../resolvers/Candidate';
import { sourceOfResolver } from '../resolvers/field-source';

/**
 * The stored field each resolver of `Candidate` reads: the first name of the path of a described
 * resolver (field-source.ts), and the two that are not described. Every other field of the type
 * is read by the default resolver from the stored field of the same name.
 */
export const CANDIDATE_RESOLVER_SOURCES: Readonly<Record<string, string>> = {
  id: 'publicId',
  partner: 'partnerPublicId',
  ...Object.fromEntries(
    Object.entries(Candidate).flatMap(([field, resolve]) => {
      const stored = sourceOfResolver(resolve)?.path[0];
      return stored === undefined ? [] : [[field, stored]];
    }),
  ),
};

/**
 * What every candidate read keeps whatever the selection: the order and the cursors
 * (createdDate, publicId), and the key of loaders and of the audit trail (publicId).
 */
const ALWAYS = ['publicId', 'createdDate'];

const RESOLVED = new Set(Object.keys(Candidate));

/**
 * The top-level fields of the candidate documents that the selection below `path` (e.g.
 * `['content']` of a CandidatePage) needs, so that a search reads only those from the
 * database: a search of publicIds then decodes a few bytes per candidate instead of kilobytes,
 * and the REST contract's selection leaves out what it never shows. However many fields are
 * selected: the store copies the kept elements as they are stored (projection.ts), at no cost
 * per field, and MongoDB projects at none either. A nested list (occupations, visa checks) is
 * one top-level field, read whole. Fields under @skip/@include count as selected (a superset
 * is harmless). Undefined (read everything) when a resolver of Candidate is not in
 * CANDIDATE_RESOLVER_SOURCES (projecting then could hide what it reads).
 */
export function candidateFieldsOf(
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>,
  path: readonly string[],
): string[] | undefined {
  let level: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) level = subfields(level, info.fragments).filter((field) => field.name.value === name);
  const fields = new Set(ALWAYS);
  for (const field of subfields(level, info.fragments)) {
    const name = field.name.value;
    if (name === '__typename') continue;
    if (!RESOLVED.has(name)) fields.add(name);
    else if (name in CANDIDATE_RESOLVER_SOURCES) fields.add(CANDIDATE_RESOLVER_SOURCES[name]);
    else return undefined;
  }
  return [...fields];
}

/** The fields selected directly below these field nodes, through fragments of any depth. */
function subfields(
  nodes: readonly FieldNode[],
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): FieldNode[] {
  return selectedFieldNodes(
    nodes.map((node) => node.selectionSet),
    fragments,
  );
}
