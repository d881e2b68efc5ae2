export { ClusterKeyError, type ClusterKeyProblem } from './cluster-key.error';
export {
  CLUSTER_KEY_BYTES_MIN,
  ClusterKeyring,
  KeyPurpose,
  parseClusterKeys,
  readClusterKeyFile,
} from './cluster-keyring';
