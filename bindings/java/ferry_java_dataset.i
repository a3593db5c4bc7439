/* ferry bindings, Java: the Java side of Dataset (ferry/dataset.h; the common
 * part is ../ferry_handles.i). A dataset is made from a Source as
 * Context.submit takes one: a direct ByteBuffer (Source.setBuffer), a byte[],
 * or Source.setImages. The upload is synchronous, so a byte[] is pinned (or
 * copied by the JVM) only for the call. gather and gatherDevice check the
 * Transform as submit does; epoch returns a new long[]. ResidentLoader.java
 * iterates epochs. */

/* The common constructor cannot pin byte[] pixels for the call: the static
 * upload below replaces it, and the Java constructors adopt what it returns. */
%ignore ferry_dataset_s::ferry_dataset_s;
%newobject ferry_dataset_s::upload;
%javamethodmodifiers ferry_dataset_s::upload "private";
%rename(epochNative) ferry_dataset_s::epoch;
%javamethodmodifiers ferry_dataset_s::epoch "private";
%rename(gatherNative) ferry_dataset_s::gather;
%javamethodmodifiers ferry_dataset_s::gather "private";
%rename(gatherDeviceNative) ferry_dataset_s::gather_device;
%javamethodmodifiers ferry_dataset_s::gather_device "private";

/* DatasetPlacement.REPLICA and SHARD: ferry_java.i's regex for enum items is at
 * the length SWIG 4.5 still applies, so these two are named here. */
%rename(REPLICA) FERRY_DATASET_REPLICA;
%rename(SHARD) FERRY_DATASET_SHARD;

FERRY_JAVA_CLOSEABLE(ferry_dataset_options)
FERRY_JAVA_CLOSEABLE(ferry_dataset_info)
FERRY_CLOSED_CHECK(ferry_dataset_options, "the DatasetOptions")
FERRY_CLOSED_CHECK(ferry_dataset_info, "the DatasetInfo")

%{
#include <memory>
%}
%extend ferry_dataset_s {
  /* ferry_dataset_create from `source`, with its data replaced by the byte[]
   * (array_data, array_bytes) where one is given, or its byte[] images pinned
   * where pinned_arrays is not null (Source.setImages). */
  static ferry_dataset_s* upload(JNIEnv* jenv, ferry_context_s* context, const ferry_source* source,
                                 jobjectArray pinned_arrays, const void* array_data, size_t array_bytes,
                                 const ferry_dataset_options* options) {
    ferry_source with_data;
    if (source != NULL && array_data != NULL) {
      if (source->sample_descs != NULL)
        ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "source has images (Source.setImages): ",
                            "give no data array with them");
      with_data = *source;
      with_data.data = array_data;
      with_data.bytes = array_bytes;
      with_data.samples = NULL;
      source = &with_data;
    }
    std::unique_ptr<ferry_java_pinned_source> pinned;
    if (pinned_arrays != NULL) {
      pinned.reset(new ferry_java_pinned_source(jenv, source, pinned_arrays));
      source = pinned->get();
    }
    ferry_dataset_t dataset = NULL;
    ferry_binding::check(ferry_dataset_create(&dataset, context, source, options));
    return dataset;
  }
}

%typemap(javainterfaces) ferry_dataset_s "AutoCloseable"
%typemap(javacode) ferry_dataset_s %{
  // Destroying the context destroys its datasets: the dataset keeps it reachable.
  private Context context;
  private long channels, epochSize;

  /**
   * Uploads the samples of {@code source} that {@code options} places here (null: the defaults, every sample)
   * into the context's device memory through the staging pipeline, and returns when they are there: the source
   * may change at once. The pixels: a direct ByteBuffer ({@link Source#setBuffer}), addresses, or
   * {@link Source#setImages} (samples of different sizes; byte[] images are pinned for the call). uint8, NHWC or
   * NCHW, not a frame format. Memory it cannot get is FerryException.OutOfMemory, naming the bytes.
   */
  public Dataset(Context context, Source source, DatasetOptions options) {
    this(swigRelease(upload(context, source, source == null ? null : source.arrayImages(), null, options)), true);
    attach(context);
  }

  public Dataset(Context context, Source source) { this(context, source, (DatasetOptions) null); }

  /** As {@link #Dataset(Context, Source, DatasetOptions)} with the pixels in a byte[] (the source gives the shape). */
  public Dataset(Context context, Source source, byte[] data, DatasetOptions options) {
    this(swigRelease(upload(context, source, null, requireData(data), options)), true);
    attach(context);
  }

  public Dataset(Context context, Source source, byte[] data) { this(context, source, data, null); }

  private static byte[] requireData(byte[] data) {
    // Without the array's bytes the source's own data would be uploaded instead, silently.
    if (data == null || data.length == 0)
      throw new FerryException.InvalidArgument("data is " + (data == null ? "null" : "empty")
          + ": a byte[] of the samples is required");
    return data;
  }

  private void attach(Context context) {
    this.context = context;
    try (DatasetInfo info = info()) {
      channels = info.getC();
      epochSize = info.getEpochSize();
    }
  }

  /**
   * Gives the dataset's memory back once the gathers that read it complete. Idempotent; other methods then throw
   * FerryException.InvalidHandle (as after the context is closed).
   */
  @Override
  public void close() {
    delete();
    context = null;
  }

  /**
   * One epoch's order for this rank: {@code info().getEpochSize()} dataset indices, drawn from (seed, epoch) where
   * shuffle is true (the same on every backend, rank and run; the ranks of a replica share one permutation out),
   * else in order.
   */
  public long[] epoch(long seed, long epoch, boolean shuffle) {
    if (epochSize > Integer.MAX_VALUE - 8)
      throw new FerryException.Overflow("epoch_size is " + epochSize + ": more indices than a Java array holds");
    long[] order = new long[(int) epochSize];
    epochNative(order, seed, epoch, shuffle);
    return order;
  }

  /**
   * Gathers the samples at {@code indices} (dataset indices, 0 to count - 1, checked before anything runs) into
   * one Batch, converted with {@code transform} (its Augment included) as a submit of the same samples from host
   * memory would be, with no copy over the bus. transform, output and options may be null; options' sourcePolicy
   * and chunkBytes must be unset. The indices may change once this returns. Thread-safe.
   */
  public Batch gather(long[] indices, Transform transform, Output output, SubmitOptions options) {
    // ferry names its own parameter (n) for an empty list; the caller passed indices.
    if (indices == null || indices.length == 0)
      throw new FerryException.InvalidArgument("indices is " + (indices == null ? "null" : "empty")
          + ": a gather needs at least one dataset index");
    return gathered(indices.length, transform, () -> gatherNative(indices, transform, output, options));
  }

  public Batch gather(long[] indices, Transform transform) { return gather(indices, transform, null, null); }

  public Batch gather(long[] indices) { return gather(indices, null, null, null); }

  /**
   * {@link #gather} with {@code count} int64 indices at address {@code indices} in the context's memory (device
   * memory on CUDA, from {@link Context#deviceAlloc} or another library; host memory on the CPU backend): an epoch's
   * order kept on the device, sliced with no host copy. They are read when the gather runs (after the work queued
   * on options' hand-off stream), so they must stay unchanged until the batch completes; an index outside 0 ..
   * count - 1 is clamped into it. Samples of one size only.
   */
  public Batch gatherDevice(long indices, long count, Transform transform, Output output, SubmitOptions options) {
    if (count < 1) // ferry names its own parameter (n)
      throw new FerryException.InvalidArgument("count is " + count + ": a gather needs at least one dataset index");
    return gathered(count, transform, () -> gatherDeviceNative(indices, count, transform, output, options));
  }

  public Batch gatherDevice(long indices, long count, Transform transform) {
    return gatherDevice(indices, count, transform, null, null);
  }

  /** A gather of n samples, with the transform checked and its Augment prepared as at submit. */
  private Batch gathered(long n, Transform transform, java.util.function.Supplier<Batch> gather) {
    if (transform != null) {
      // The transform's arrays are checked against the channels, and its Augment makes room, as at submit.
      try (Source shape = new Source().setShape(n, 0, 0, channels)) {
        transform.checkLengths(shape);
      }
    }
    Batch batch = gather.get();
    batch.keepAlive = new Object[] {context};
    if (transform != null) transform.augmentCalled(batch);
    return batch;
  }

  /** e.g. "Dataset(40 of 40 samples, 32 x 32 x 3 NHWC, 122880 bytes on CPU, REPLICA rank 0 of 1)". */
  @Override
  public String toString() {
    if (swigCPtr == 0) return "Dataset(closed)";
    try (DatasetInfo i = info()) {
      return "Dataset(" + i.getCount() + " of " + i.getSourceCount() + " samples, "
          + (i.getVariableSizes() != 0 ? "up to " : "") + i.getH() + " x " + i.getW() + " x " + i.getC() + " "
          + i.getLayout() + ", " + i.getBytes() + " bytes on " + i.getDeviceKind() + ", " + i.getPlacement()
          + " rank " + i.getRank() + " of " + i.getWorldSize() + ")";
    } catch (FerryException.InvalidHandle e) {
      return "Dataset(destroyed with its context)";
    }
  }
%}
