// The contract primitive lives in core (every middleware module attaches one); re-exported here, where
// the OpenAPI generator reads it.
export {
  CONTRACT,
  contractOf,
  contractsOf,
  describeLayer,
  type HeaderContract,
  type OperationContract,
  type StatusContract,
} from '../core/contract.js';
