package io.github.distlock.autoconfigure.docs.snippets;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

import io.github.distlock.DistributedLock;

/** The annotation page's composed annotation. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@DistributedLock(name = "order", lease = "10s")
public @interface OrderLock {

	@AliasFor(annotation = DistributedLock.class, attribute = "key")
	String value();

}
