import type { CoalescedFetch } from '../../cache/coalesced-fetch';
import type { Services } from '../../service-types';
import type { GraphQLContext } from '../../graphql/context';
import { publicIdOf } from '../../store/raw-bson';
import type { PersistedOperations } from '../persisted-operations';
import { NotTranscodable, type Transcoder, type TranscoderCompilation } from './compile-transcoder';

/** The /v1 reads written from stored bytes, by persisted operation. */
export const TRANSCODED_READS = {
  FindCandidates: ['candidates'],
  GetCandidate: ['candidate'],
  GetCandidatesByList: ['savedList', 'candidates'],
} as const;

export type TranscodedRead = keyof typeof TRANSCODED_READS;

/**
 * What a read written from stored bytes answers: the body, or `null` when the operation's root
 * found nothing (no such candidate or list: a 404), or `undefined` when the executor must
 * answer (the operation was not compiled, the variables are refused, or a stored value is one
 * the transcoder leaves to the executor). The same services run as under the executor, with the
 * same caller: permission checks and input rules are theirs.
 */
export interface RawReads {
  /** which operations were compiled, and why the others were not */
  readonly compilations: { readonly [N in TranscodedRead]: TranscoderCompilation };
  findCandidates(variables: Record<string, unknown>, context: GraphQLContext): Promise<Buffer | undefined>;
  getCandidate(variables: { publicId: string }, context: GraphQLContext): Promise<Buffer | null | undefined>;
  getCandidatesByList(variables: Record<string, unknown>, context: GraphQLContext): Promise<Buffer | null | undefined>;
}

export function createRawReads(operations: PersistedOperations, services: Services): RawReads {
  const compilations = {
    FindCandidates: operations.transcoder('FindCandidates', TRANSCODED_READS.FindCandidates),
    GetCandidate: operations.transcoder('GetCandidate', TRANSCODED_READS.GetCandidate),
    GetCandidatesByList: operations.transcoder('GetCandidatesByList', TRANSCODED_READS.GetCandidatesByList),
  };
  const compiled = (name: TranscodedRead): Transcoder | undefined => {
    const compilation = compilations[name];
    return 'transcoder' in compilation ? compilation.transcoder : undefined;
  };
  const { candidateRawFetch, jobOpportunityRawFetch, jobOpportunityRawCache } = services.repositories;
  const queries = services.candidateQueries;

  return {
    compilations,

    async findCandidates(variables, context) {
      const transcoder = compiled('FindCandidates');
      const args = transcoder?.argumentsOf(variables);
      if (transcoder === undefined || args === undefined) return undefined;
      const page = await queries.searchRaw(context.apiKey, args[0], transcoder.candidateFields);
      return written(transcoder, page.content, context, (inputs) => transcoder.writePage(page, inputs));
    },

    async getCandidate(variables, context) {
      const transcoder = compiled('GetCandidate');
      const args = transcoder?.argumentsOf(variables);
      if (transcoder === undefined || args === undefined) return undefined;
      const candidate = await queries.findCandidateRaw(
        context.apiKey,
        args[0].publicId as string,
        async (publicId) => (await fetchRaw(candidateRawFetch, [publicId], context.readEpoch))[0] ?? null,
      );
      if (candidate === null) return null;
      return written(transcoder, [candidate], context, (inputs) => transcoder.writeCandidate(candidate, inputs));
    },

    async getCandidatesByList(variables, context) {
      const transcoder = compiled('GetCandidatesByList');
      const args = transcoder?.argumentsOf(variables);
      if (transcoder === undefined || args === undefined) return undefined;
      const list = await queries.findSavedList(context.apiKey, args[0].publicId as string);
      if (list === null) return null;
      const page = await queries.savedListPageRaw(list, args[1], async (publicIds) => {
        const byId = new Map<string, Uint8Array>();
        for (const document of await fetchRaw(candidateRawFetch, publicIds, context.readEpoch))
          byId.set(publicIdOf(document), document);
        return publicIds.map((publicId) => byId.get(publicId) ?? null);
      });
      return written(transcoder, page.content, context, (inputs) => transcoder.writePage(page, inputs));
    },
  };

  /**
   * The body written from the candidates once their joined documents are fetched (one batch
   * for the page), and the candidates recorded in the request's audit trail; undefined when a
   * stored value is left to the executor (which then records what it answers).
   */
  async function written(
    transcoder: Transcoder,
    candidates: readonly Uint8Array[],
    context: GraphQLContext,
    write: (inputs: Parameters<Transcoder['writePage']>[1]) => Buffer,
  ): Promise<Buffer | undefined> {
    const jobOpportunities = new Map<string, Uint8Array>();
    const missing: string[] = [];
    for (const publicId of transcoder.joinedJobOpportunities(candidates)) {
      // Kept under the read epoch, as the job opportunity loader keeps them (an empty epoch keeps nothing).
      const kept = context.readEpoch === '' ? undefined : jobOpportunityRawCache.get(publicId, context.readEpoch);
      if (kept === undefined) missing.push(publicId);
      else jobOpportunities.set(publicId, kept);
    }
    if (missing.length > 0) {
      for (const document of await fetchRaw(jobOpportunityRawFetch, missing, context.readEpoch)) {
        const publicId = publicIdOf(document);
        jobOpportunities.set(publicId, document);
        if (context.readEpoch !== '') jobOpportunityRawCache.set(publicId, context.readEpoch, document);
      }
    }
    let body: Buffer;
    try {
      body = write({ reference: context.reference, jobOpportunities });
    } catch (error) {
      if (error instanceof NotTranscodable) return undefined;
      throw error;
    }
    context.audit.addCandidates(candidates.map(publicIdOf));
    return body;
  }
}

/** Through the coalescer under the request's read epoch; alone without one (as the loaders do). */
function fetchRaw(fetch: CoalescedFetch<Uint8Array>, ids: readonly string[], readEpoch: string): Promise<Uint8Array[]> {
  return readEpoch === '' ? fetch.fetchAlone(ids) : fetch.load(ids, readEpoch);
}
