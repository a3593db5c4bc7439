package io.ferry;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Batches from an iterator of sources, {@code depth} submitted ahead (issue 11): while the caller
 * works on batch k, batches k+1 .. k+depth are already being copied and converted, the way
 * tf.data's prefetch and timm's PrefetchLoader keep a pipeline full. Made by
 * {@link Context#prefetch}. Each source may describe a different shape.
 *
 * <p>The Batch {@link #next()} returns is the caller's to wait on ({@link Batch#await()}) and
 * close. A source (its direct ByteBuffer) must stay unchanged until its batch's source is
 * reusable, as for {@link Context#submit}; an engine that rewrites one buffer per frame needs
 * {@code depth + 1} buffers in turn. {@link #close()} (try-with-resources) waits for the batches
 * submitted but not yet returned and releases them: leaving a loop early leaves nothing in
 * flight. When the iterator of sources or a submit throws, the same happens before the exception
 * reaches the caller. Not thread-safe: one consumer per Prefetcher (the context is thread-safe).
 *
 * <p>With an {@link Augment}, each batch draws at the Augment's step as it is submitted, and the step then
 * advances by one: batches submitted ahead have already advanced it, so {@link #step()} (the step of the next
 * batch {@link #next()} returns) is the one to save for a resume; {@link #close()} sets the Augment back to it.
 */
public final class Prefetcher implements Iterator<Batch>, AutoCloseable {
  private final Context context;
  private final Iterator<? extends Source> sources;
  private final Transform transform;
  private final Augment augment;
  private final boolean ownTransform;
  private final SubmitOptions options;
  private final int depth;
  private final ArrayDeque<Batch> pending = new ArrayDeque<>();
  private long submitted;
  private boolean closed;

  Prefetcher(Context context, Iterator<? extends Source> sources, Transform transform, Augment augment,
             SubmitOptions options, int depth) {
    if (context == null) throw new FerryException.InvalidArgument("context is null");
    if (sources == null) throw new FerryException.InvalidArgument("sources is null: an Iterable of Source is required");
    if (depth < 1) {
      throw new FerryException.InvalidArgument(
          "depth is " + depth + ": the batches kept in flight ahead, 1 or more (2 is the usual)");
    }
    this.context = context;
    this.sources = sources;
    this.ownTransform = augment != null && transform == null;
    this.transform = ownTransform ? new Transform() : transform;
    this.augment = augment;
    this.options = options;
    this.depth = depth;
  }

  /** Batches submitted ahead of the one returned. */
  public int depth() { return depth; }

  /** The Augment's step of the next batch {@link #next()} returns (without an Augment, 0). */
  public long step() { return augment == null ? 0 : augment.getStep() - pending.size(); }

  @Override
  public boolean hasNext() {
    fill(1);
    return !pending.isEmpty();
  }

  /** The next batch, submitted earlier; the next depth sources are submitted before it returns. */
  @Override
  public Batch next() {
    if (!hasNext()) throw new NoSuchElementException("no more sources");
    Batch batch = pending.poll();
    try {
      fill(depth);
    } catch (RuntimeException | Error e) {
      finish(batch);
      throw e;
    }
    return batch;
  }

  /** Submits sources until `queued` batches wait to be returned, or the sources end. On an
   * error, closes this Prefetcher (nothing left in flight) and rethrows. */
  private void fill(int queued) {
    if (closed) throw new FerryException.InvalidHandle("the Prefetcher is closed");
    try {
      while (pending.size() < queued && sources.hasNext()) {
        Source source = sources.next();
        Batch batch;
        try {
          batch = augment == null ? context.submit(source, transform, null, options) : submitAugmented(source);
        } catch (FerryException e) {
          throw e.within("batch " + submitted + " from the sources");
        }
        pending.add(batch);
        submitted++;
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** Submits with the transform holding the Augment for the call; the step advances once it succeeded. */
  private Batch submitAugmented(Source source) {
    Augment held = transform.getAugment();
    transform.setAugment(augment);
    try {
      Batch batch = context.submit(source, transform, null, options);
      augment.setStep(augment.getStep() + 1);
      return batch;
    } finally {
      transform.attachAugment(held);
    }
  }

  /** Waits for a batch and releases it; its error, if any, is not the one to report. */
  static void finish(Batch batch) {
    try (Batch b = batch) {
      b.await();
    } catch (FerryException e) {
      // finished all the same
    }
  }

  /**
   * Waits for the batches submitted and not returned, and releases them; an Augment's step goes back to
   * {@link #step()} (those batches never reached the caller). Idempotent.
   */
  @Override
  public void close() {
    if (!closed && augment != null && Augment.getCPtr(augment) != 0) augment.setStep(step());
    closed = true;
    while (!pending.isEmpty()) finish(pending.poll());
    if (ownTransform) transform.close();
  }
}
