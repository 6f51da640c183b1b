package io.github.distlock.autoconfigure.unwoven;

import io.github.distlock.DistributedLock;

/**
 * A locked bean of a package the AspectJ mode tests' aop.xml does not list, so the weaver leaves it out: its method
 * would run unlocked.
 */
public class Invoices {

	@DistributedLock(key = "#invoice")
	public void send(String invoice) {
	}

}
