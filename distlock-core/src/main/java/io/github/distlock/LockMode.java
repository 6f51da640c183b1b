package io.github.distlock;

/**
 * How a lock is shared between holders of the same name and key.
 */
public enum LockMode {

	/** One holder at a time: the default. */
	EXCLUSIVE,

	/**
	 * The read side of a read/write lock: any number of readers at a time while no writer holds it. Once a writer
	 * waits, new readers queue behind it, so writers never starve. The {@code READ} and {@code WRITE} locks of a name
	 * and key form one read/write lock, distinct from the {@code EXCLUSIVE} lock of the same name and key.
	 */
	READ,

	/**
	 * The write side of a read/write lock: one writer, and no reader, at a time. A writer may take the read lock of
	 * the same name and key inside its write lock (it enters the write lock); a reader that asks for the write lock is
	 * refused at once with {@link LockUpgradeException}, since waiting for the other readers to leave could wait for
	 * itself.
	 */
	WRITE;

	/** Whether holders in this mode belong to a read/write lock. */
	public boolean isReadWrite() {
		return this != EXCLUSIVE;
	}

}
