// Signatures are computed in one place for extraction and review alike (src/kg/signatures.ts): a node's is its
// normalised name and type, an edge's joins its endpoints' signatures and the predicate.
export { edgeSignature, nodeSignature, normaliseName } from '../kg/signatures.js';
