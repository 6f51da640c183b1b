package io.github.distlock.autoconfigure;

/**
 * Settings of the ShedLock provider, under {@code distlock.shedlock.*}.
 */
public class ShedLockProviderProperties {

	/**
	 * Whether to define ShedLock's LockProvider on the lock engine when the application defines none.
	 */
	private boolean enabled = true;

	/**
	 * The distlock lock name whose keys ShedLock's lock names are. Applications that share a store and must
	 * not share their jobs' locks use different names.
	 */
	private String name = "shedlock";

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
