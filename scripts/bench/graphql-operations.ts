import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, visit, type DefinitionNode, type FragmentDefinitionNode } from 'graphql';

/**
 * The GraphQL documents of the benchmark. The search is the persisted operation of
 * GET /v1/candidates itself (schema/rest/), so the GraphQL and REST rows select the same fields.
 */

/**
 * A persisted operation of schema/rest/ with only the fragments it uses: the shared fragments
 * file holds others too, and GraphQL rejects a document with unused fragments.
 */
export function persistedOperation(restSchemaDir: string, file: string): string {
  const operation = parse(fs.readFileSync(path.join(restSchemaDir, file), 'utf8'));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of parse(fs.readFileSync(path.join(restSchemaDir, 'fragments.graphql'), 'utf8')).definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const used = new Set<string>();
  const pending: DefinitionNode[] = [...operation.definitions];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const name = node.name.value;
        if (used.has(name)) return;
        const fragment = fragments.get(name);
        if (!fragment) throw new Error(`${file} spreads an unknown fragment ${name}`);
        used.add(name);
        pending.push(fragment);
      },
    });
  }
  const definitions = [...operation.definitions, ...[...fragments.values()].filter((f) => used.has(f.name.value))];
  return print({ kind: Kind.DOCUMENT, definitions });
}

/**
 * A page of candidates with their nested aggregates: occupations with job experiences,
 * languages with levels, visa checks with job checks and their job opportunities, and the
 * partner (another candidate, resolved through the loaders). `$page` absent: the first page.
 */
export const DEEP_QUERY = `query BenchDeepPage($limit: Int, $page: Int) {
  candidates(limit: $limit, page: $page) {
    totalElements
    content {
      publicId
      status
      createdDate
      country { isoCode name }
      nationality { isoCode name }
      candidateOccupations {
        occupation { isco08Code name status }
        yearsExperience
        candidateJobExperiences {
          country { isoCode name }
          companyName
          role
          startDate
          endDate
          fullTime
          paid
        }
      }
      candidateLanguages {
        language { isoCode name }
        writtenLevel { level name cefrLevel }
        spokenLevel { level name cefrLevel }
      }
      candidateVisaChecks {
        country { isoCode name }
        overallRisk
        candidateVisaJobChecks {
          interest
          eligibleOther
          occupation { isco08Code name }
          jobOpp {
            country { isoCode name }
            employerEntity { country { isoCode name } hasHiredInternationally }
            stage
            publishedDate
            hiringCommitment
          }
        }
      }
      partner {
        publicId
        status
        nationality { isoCode name }
        candidateOccupations { occupation { isco08Code name } yearsExperience }
        candidateLanguages { language { isoCode name } spokenLevel { level cefrLevel } }
      }
    }
  }
}`;

/** Candidates per page of the deep query. */
export const DEEP_QUERY_PAGE = 20;

/** The statistics query of the cold statistics rows: every field of the answer. */
export const STATISTICS_QUERY = `query Statistics($filter: CandidateFilter, $includeEmployed: Boolean, $groupBy: [CandidateDimension!]!) {
  candidateStatistics(filter: $filter, includeEmployed: $includeEmployed, groupBy: $groupBy) {
    total
    totalInterval { low high }
    sensitivity
    minimumCellSize
    epsilonCharged
    budgetRemaining
    budgetRenewsAt
    answeredAt
    cells { count interval { low high } values { dimension code label } }
  }
}`;
