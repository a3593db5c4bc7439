package io.ferry;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Epochs of batches gathered from a resident {@link Dataset}, the way PyTorch's DataLoader with a
 * DistributedSampler walks one: each iteration is one epoch in the order {@link Dataset#epoch} gives for
 * (seed, epoch), cut into batches of {@code batchSize} (the last one shorter, or dropped with dropLast), each
 * gathered {@code depth} ahead of the one returned so the device is never waiting on the loop.
 *
 * <p>With the transform's Augment set, batch b of epoch e draws at step {@code s + e * size() + b}, s the Augment's
 * own step (0 unless set): every batch draws anew, and a run reproduces (or resumes at an epoch) exactly, as the
 * Python binding's loader does. The loader sets that step on the Augment for each gather and puts s back after
 * it, so an Augment serves one loader at a time.
 *
 * <pre>{@code
 * ResidentLoader loader = new ResidentLoader(dataset, 256).setShuffle(true).setSeed(42).setTransform(t)
 *     .setLabels(labels);
 * for (long epoch = 0; epoch < epochs; ++epoch) {
 *   loader.setEpoch(epoch);
 *   for (ResidentLoader.Item item : loader) {
 *     try (item) { item.batch().await(); train(item.batch(), item.labels()); }
 *   }
 * }
 * }</pre>
 *
 * Settings take effect at the next {@link #iterator()}. One iteration at a time: a new one (or {@link #close()})
 * waits for the gathers the open one has in flight and releases them, so leaving a loop early leaves nothing
 * behind. Not thread-safe (the Dataset is).
 */
public final class ResidentLoader implements Iterable<ResidentLoader.Item>, AutoCloseable {
  private final Dataset dataset;
  private final long batchSize, epochSize, sourceCount;
  private boolean shuffle = true, dropLast;
  private long seed, epoch;
  private Transform transform;
  private SubmitOptions options;
  private long[] labels;
  private int depth = 2;
  private Batches open;

  /** Batches of {@code batchSize} samples of {@code dataset}: shuffled, the last batch kept, until set otherwise. */
  public ResidentLoader(Dataset dataset, long batchSize) {
    if (dataset == null) throw new FerryException.InvalidArgument("dataset is null: a Dataset is required");
    if (batchSize < 1)
      throw new FerryException.InvalidArgument("batchSize is " + batchSize + ": 1 or more samples a batch");
    try (DatasetInfo info = dataset.info()) {
      epochSize = info.getEpochSize();
      sourceCount = info.getSourceCount();
    }
    this.dataset = dataset;
    this.batchSize = batchSize;
  }

  /** A permutation per epoch (true, the default), or the dataset's order (false). */
  public ResidentLoader setShuffle(boolean shuffle) { this.shuffle = shuffle; return this; }

  /** Drops the last batch where it would be short of batchSize (default false). */
  public ResidentLoader setDropLast(boolean dropLast) { this.dropLast = dropLast; return this; }

  /** The permutations' seed: the same on every rank of a job (default 0). */
  public ResidentLoader setSeed(long seed) { this.seed = seed; return this; }

  /** The epoch the next iteration walks (default 0), as DistributedSampler.set_epoch: call it before each one. */
  public ResidentLoader setEpoch(long epoch) {
    if (epoch < 0) throw new FerryException.InvalidArgument("epoch is " + epoch + ": 0 or more");
    this.epoch = epoch;
    return this;
  }

  /** How each batch converts (null: the defaults); its Augment, if any, draws per batch as the class says. */
  public ResidentLoader setTransform(Transform transform) { this.transform = transform; return this; }

  /** The gathers' hand-off stream, priority (null: the defaults). */
  public ResidentLoader setOptions(SubmitOptions options) { this.options = options; return this; }

  /** One label per source sample (null: none): each item carries those of its samples ({@link Item#labels()}). */
  public ResidentLoader setLabels(long[] labels) {
    if (labels != null && labels.length != sourceCount)
      throw new FerryException.InvalidArgument("labels has " + labels.length + " entries but the dataset was built"
          + " from " + sourceCount + " samples: one label per source sample");
    this.labels = labels == null ? null : labels.clone();
    return this;
  }

  /** Gathers in flight ahead of the batch returned, 1 or more (default 2). */
  public ResidentLoader setDepth(int depth) {
    if (depth < 1)
      throw new FerryException.InvalidArgument("depth is " + depth + ": the gathers kept in flight ahead, 1 or more");
    this.depth = depth;
    return this;
  }

  public long epoch() { return epoch; }

  /** Batches per epoch: this rank's epoch_size samples in batchSize batches, the short last one unless dropLast. */
  public long size() { return dropLast ? epochSize / batchSize : (epochSize + batchSize - 1) / batchSize; }

  /** The batches of the epoch set last; closes the iteration before this one. */
  @Override
  public Batches iterator() {
    close();
    open = new Batches();
    return open;
  }

  /** Waits for the open iteration's gathers in flight and releases them. Idempotent. */
  @Override
  public void close() {
    if (open != null) open.close();
    open = null;
  }

  /** One batch: its Batch (to wait on, read, close) and which samples it holds. Closing it releases the Batch. */
  public static final class Item implements AutoCloseable {
    private final Batch batch;
    private final long[] indices, sourceIndices, labels;
    private final long epoch, number, step;

    private Item(Batch batch, long[] indices, long[] sourceIndices, long[] labels, long epoch, long number,
                 long step) {
      this.batch = batch;
      this.indices = indices;
      this.sourceIndices = sourceIndices;
      this.labels = labels;
      this.epoch = epoch;
      this.number = number;
      this.step = step;
    }

    /** The gather, submitted: {@link Batch#await()} before reading its output. */
    public Batch batch() { return batch; }

    /** The dataset indices of its samples, in output order. */
    public long[] indices() { return indices.clone(); }

    /** The source samples they hold ({@link Dataset#sourceIndex}). */
    public long[] sourceIndices() { return sourceIndices.clone(); }

    /** Their labels (the loader's labels at sourceIndices()), or null where the loader has none. */
    public long[] labels() { return labels == null ? null : labels.clone(); }

    public long epoch() { return epoch; }

    /** The batch's place in its epoch, from 0. */
    public long number() { return number; }

    /** The Augment's step for this batch: its own step + epoch * size() + number. */
    public long step() { return step; }

    @Override
    public void close() { batch.close(); }

    @Override
    public String toString() {
      return "Item(epoch " + epoch + ", batch " + number + ", " + indices.length + " samples, " + batch + ")";
    }
  }

  /** One epoch's items, gathered depth ahead. Closing it (or its loader) releases those not yet returned. */
  public final class Batches implements Iterator<Item>, AutoCloseable {
    private final long[] order = dataset.epoch(seed, epoch, shuffle);
    private final long epochNumber = epoch, count = size();
    private final Transform batchTransform = transform;
    private final SubmitOptions batchOptions = options;
    private final long[] batchLabels = labels;
    private final int ahead = depth;
    private final ArrayDeque<Item> pending = new ArrayDeque<>();
    private long gathered;
    private boolean closed;

    private Batches() {}

    @Override
    public boolean hasNext() {
      fill(1);
      return !pending.isEmpty();
    }

    /** The next batch; the gathers depth batches ahead are submitted before it returns. */
    @Override
    public Item next() {
      if (!hasNext()) throw new NoSuchElementException("the epoch's " + count + " batches are done");
      Item item = pending.poll();
      try {
        fill(ahead);
      } catch (RuntimeException | Error e) {
        Prefetcher.finish(item.batch);
        throw e;
      }
      return item;
    }

    /** Gathers until `queued` items wait to be returned, or the epoch ends; on an error, closes this first. */
    private void fill(int queued) {
      if (closed)
        throw new FerryException.InvalidHandle("this iteration is closed (by close(), or a later iterator())");
      try {
        while (pending.size() < queued && gathered < count) pending.add(gather(gathered++));
      } catch (RuntimeException | Error e) {
        close();
        throw e;
      }
    }

    private Item gather(long number) {
      int start = (int) (number * batchSize);
      long[] indices = Arrays.copyOfRange(order, start, (int) Math.min(order.length, start + batchSize));
      long[] sources = new long[indices.length];
      for (int i = 0; i < indices.length; ++i) sources[i] = dataset.sourceIndex(indices[i]);
      long[] itemLabels = null;
      if (batchLabels != null) {
        itemLabels = new long[sources.length];
        for (int i = 0; i < sources.length; ++i) itemLabels[i] = batchLabels[(int) sources[i]];
      }
      Augment augment = batchTransform == null ? null : batchTransform.getAugment();
      long base = augment == null ? 0 : augment.getStep();
      long step = base + epochNumber * count + number;
      if (augment != null) augment.setStep(step); // read by the gather, during the call
      try {
        Batch batch = dataset.gather(indices, batchTransform, null, batchOptions);
        return new Item(batch, indices, sources, itemLabels, epochNumber, number, step);
      } catch (FerryException e) {
        throw e.within("batch " + number + " of epoch " + epochNumber);
      } finally {
        if (augment != null) augment.setStep(base);
      }
    }

    /** Waits for the gathers not yet returned and releases them. Idempotent. */
    @Override
    public void close() {
      closed = true;
      while (!pending.isEmpty()) Prefetcher.finish(pending.poll().batch);
    }
  }
}
