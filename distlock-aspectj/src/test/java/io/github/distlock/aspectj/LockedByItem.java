package io.github.distlock.aspectj;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.distlock.DistributedLock;

/** A composed annotation: the aspect finds {@link DistributedLock} on it. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@DistributedLock(name = "ship", key = "#item", waitTime = "0s")
@interface LockedByItem {

}
