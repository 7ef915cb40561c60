export { type AccessRule, selfOrScope, visibleToOwner } from './access.js';
export { checkOwnership, type OwnershipResult } from './check.js';
export {
  type DenialReason,
  type LevelFact,
  nextOwnershipStep,
  OWNERSHIP_DENIALS,
  type OwnershipFacts,
  type OwnershipStep,
} from './decision.js';
export { type OwnershipGuardOptions, ownershipGuard } from './middleware.js';
export {
  type ChildLevel,
  type LastRecord,
  type Loader,
  type OwnedLevel,
  type OwnedPath,
  type OwnedRecord,
  ownedPath,
  type ParamsFor,
  type ParentLevel,
} from './owned-path.js';
export {
  type OwnedResource,
  type OwnedResourceOptions,
  ownedRecordFact,
  ownedResource,
} from './owned-resource.js';
