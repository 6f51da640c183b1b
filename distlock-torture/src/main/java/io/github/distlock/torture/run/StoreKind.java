package io.github.distlock.torture.run;

/** Where the workers' locks live: which engine the run tortures. */
public enum StoreKind {

	/** The Redis engine, on a redis-server the run starts. */
	REDIS,

	/** The Redis engine, on a Redis Cluster the run starts: three masters, each with a replica. */
	REDIS_CLUSTER,

	/** The Redis engine behind Sentinel: a master, a replica and three sentinels the run starts. */
	REDIS_SENTINEL,

	/** The RedLock engine, on five independent redis-server masters the run starts. */
	REDLOCK,

	/** The JDBC engine, on a private database of the machine's PostgreSQL. */
	POSTGRESQL,

	/** The JDBC engine, on a private database of the machine's MariaDB (or MySQL). */
	MARIADB,

	/** The ZooKeeper engine, on a standalone ZooKeeper server the run starts as a process of its own. */
	ZOOKEEPER,

	/** The etcd engine, on a one-member etcd the run starts as a process of the machine's etcd binary. */
	ETCD,

	/** The etcd engine, on a cluster of three etcd members the run starts, each a process of the etcd binary. */
	ETCD_CLUSTER,

	/** The ZooKeeper engine, on an ensemble of three ZooKeeper servers the run starts, each a process of its own. */
	ZOOKEEPER_ENSEMBLE

}
