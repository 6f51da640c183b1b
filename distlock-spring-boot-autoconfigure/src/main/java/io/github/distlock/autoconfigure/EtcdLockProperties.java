package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the etcd engine, under {@code distlock.etcd.*}.
 */
public class EtcdLockProperties {

	/**
	 * The cluster's client endpoints, such as http://etcd-1:2379. Needed unless the application defines an
	 * io.etcd.jetcd.Client bean.
	 */
	private List<String> endpoints = new ArrayList<>();

	/**
	 * User to authenticate as, when etcd's authentication is on.
	 */
	private @Nullable String username;

	/**
	 * Password of that user.
	 */
	private @Nullable String password;

	/**
	 * Prefix under which every lock's keys live.
	 */
	private String root = "/distlock";

	/**
	 * Time to live of the instance's etcd lease, kept alive while the application runs: how long a crashed
	 * instance keeps its locks.
	 */
	private Duration leaseTtl = Duration.ofSeconds(10);

	/**
	 * Longest wait for etcd's answer at start-up, and for each connection attempt.
	 */
	private Duration connectTimeout = Duration.ofSeconds(5);

	/**
	 * The cluster's election timeout (etcd's --election-timeout): a call with no answer within it is sent again,
	 * as the leader it went to may have died and a new one may answer.
	 */
	// etcd's default, as EtcdLockEngine.DEFAULT_ELECTION_TIMEOUT (not referred to: the etcd engine is optional).
	private Duration electionTimeout = Duration.ofSeconds(1);

	public List<String> getEndpoints() {
		return this.endpoints;
	}

	public void setEndpoints(List<String> endpoints) {
		this.endpoints = endpoints;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public String getRoot() {
		return this.root;
	}

	public void setRoot(String root) {
		this.root = root;
	}

	public Duration getLeaseTtl() {
		return this.leaseTtl;
	}

	public void setLeaseTtl(Duration leaseTtl) {
		this.leaseTtl = DurationSettings.positive("distlock.etcd.lease-ttl", leaseTtl);
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = DurationSettings.positive("distlock.etcd.connect-timeout", connectTimeout);
	}

	public Duration getElectionTimeout() {
		return this.electionTimeout;
	}

	public void setElectionTimeout(Duration electionTimeout) {
		this.electionTimeout = DurationSettings.positive("distlock.etcd.election-timeout", electionTimeout);
	}

}
