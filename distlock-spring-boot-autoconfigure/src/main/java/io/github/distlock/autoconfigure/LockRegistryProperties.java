package io.github.distlock.autoconfigure;

/**
 * Settings of Spring Integration's lock registry on distlock, under {@code distlock.lock-registry.*}.
 */
public class LockRegistryProperties {

	/**
	 * Whether to define Spring Integration's LockRegistry on the lock engine when the application defines none.
	 */
	private boolean enabled = true;

	/**
	 * The distlock lock name whose keys the registry's lock keys are. Applications that share a store and must not
	 * share their registries' locks use different names.
	 */
	private String name = "lock-registry";

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getName() {
		return this.name;
	}

	public void setName(String name) {
		this.name = name;
	}

}
