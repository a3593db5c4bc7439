using System;
using System.Runtime.InteropServices;

namespace Ferry {

/// <summary>A dataset held in the context's device memory as uint8 (ferry/dataset.h): uploaded once
/// through the staging pipeline, then every batch is a Gather from device memory with any transform
/// and augmentation, and no bus traffic (GatherDevice: the indices on the device too). Destroying the
/// context destroys it (its methods then throw InvalidHandleException, as after Dispose).
/// Thread-safe: several threads may gather at once. ResidentLoader walks its epochs.</summary>
public partial class Dataset {
  // Destroying the context destroys its datasets: the dataset keeps it reachable.
  Context context;
  long channels, epochSize;

  /// <summary>Uploads the samples of source that options places here (null: the defaults, every
  /// sample) and returns when they are there: the source may change at once. The pixels: a byte[] set
  /// with Source.SetBuffer, Data, or Source.SetImages (samples of different sizes), pinned for the call.
  /// uint8, NHWC or NCHW, not a frame format. Memory it cannot get is OutOfMemoryException, naming the
  /// bytes.</summary>
  public Dataset(Context context, Source source, DatasetOptions options = null)
      : this(Adopt(UploadSource(context, source, options)), true) {
    Attach(context);
  }

  /// <summary>As Dataset(Context, Source, DatasetOptions) with the pixels in a byte[] (the source
  /// gives the shape).</summary>
  public Dataset(Context context, Source source, byte[] data, DatasetOptions options = null)
      : this(Adopt(UploadArray(context, source, data, options)), true) {
    Attach(context);
  }

#if FERRY_HAVE_SPAN
  /// <summary>As Dataset(Context, Source, DatasetOptions) with the pixels in a span.</summary>
  public Dataset(Context context, Source source, ReadOnlySpan<byte> data, DatasetOptions options = null)
      : this(Adopt(UploadSpan(context, source, data, options)), true) {
    Attach(context);
  }

  static unsafe Dataset UploadSpan(Context context, Source source, ReadOnlySpan<byte> data, DatasetOptions options) {
    if (data.Length == 0) throw NoData(false);
    fixed (byte* p = &MemoryMarshal.GetReference(data)) {
      return Upload(context, source, (IntPtr)p, (ulong)data.Length, options);
    }
  }
#endif

  // Without the array's bytes the source's own data would be uploaded instead, silently.
  static InvalidArgumentException NoData(bool isNull) {
    return new InvalidArgumentException("data is " + (isNull ? "null" : "empty") + ": the samples' bytes are required");
  }

  static unsafe Dataset UploadArray(Context context, Source source, byte[] data, DatasetOptions options) {
    if (data == null || data.Length == 0) throw NoData(data == null);
    fixed (byte* p = data) {
      return Upload(context, source, (IntPtr)p, (ulong)data.Length, options);
    }
  }

  static unsafe Dataset UploadSource(Context context, Source source, DatasetOptions options) {
    byte[] array = source == null ? null : source.Buffer;
    if (array != null) {
      fixed (byte* p = array) {
        return Upload(context, source, (IntPtr)(p + source.BufferOffset), (ulong)source.BufferCount, options);
      }
    }
    var pins = source == null ? null : source.PinImages();
    try {
      return Upload(context, source, IntPtr.Zero, 0, options);
    } finally {
      if (pins != null) source.UnpinImages(pins);
    }
  }

  // The native object of a Dataset that Upload made, owned from then on by the one being built.
  static IntPtr Adopt(Dataset made) { return swigRelease(made).Handle; }

  void Attach(Context context) {
    this.context = context;
    using (DatasetInfo info = Info()) {
      channels = info.C;
      epochSize = info.EpochSize;
    }
  }

  /// <summary>One epoch's order for this rank: Info().EpochSize dataset indices, drawn from (seed,
  /// epoch) where shuffle is true (the same on every backend, rank and run; the ranks of a replica
  /// share one permutation out), else in order.</summary>
  public long[] Epoch(ulong seed, ulong epoch, bool shuffle) {
    var order = new long[epochSize];
    EpochNative(order, (ulong)order.LongLength, seed, epoch, shuffle);
    return order;
  }

  /// <summary>Gathers the samples at indices (dataset indices, 0 to count - 1, checked before anything
  /// runs) into one Batch, converted with transform (its Augment included) as a Submit of the same
  /// samples from host memory would be, with no copy over the bus. transform, output and options may
  /// be null; options' SourcePolicy and ChunkBytes must be unset. The indices may change once this
  /// returns.</summary>
  public Batch Gather(long[] indices, Transform transform = null, Output output = null, SubmitOptions options = null) {
    // ferry names its own parameter (n) for an empty list; the caller passed indices.
    if (indices == null || indices.Length == 0)
      throw new InvalidArgumentException("indices is " + (indices == null ? "null" : "empty") +
                                         ": a gather needs at least one dataset index");
    return Gathered(indices.Length, transform, () => GatherNative(indices, (ulong)indices.Length, transform, output,
                                                                  options));
  }

  /// <summary>Gather with count int64 indices at address indices in the context's memory (device
  /// memory on CUDA, from Context.DeviceAlloc or another library; host memory on the CPU backend): an
  /// epoch's order kept on the device, sliced with no host copy. They are read when the gather runs
  /// (after the work queued on options' hand-off stream), so they must stay unchanged until the batch
  /// completes; an index outside 0 .. count - 1 is clamped into it. Samples of one size only.</summary>
  public Batch GatherDevice(IntPtr indices, long count, Transform transform = null, Output output = null,
                            SubmitOptions options = null) {
    if (count < 1)  // ferry names its own parameter (n)
      throw new InvalidArgumentException("count is " + count + ": a gather needs at least one dataset index");
    return Gathered(count, transform, () => GatherDeviceNative(indices, (ulong)count, transform, output, options));
  }

  /// <summary>A gather of n samples, with the transform checked and its Augment prepared as at Submit.</summary>
  Batch Gathered(long n, Transform transform, Func<Batch> gather) {
    if (transform != null) {
      // The transform's arrays are checked against the channels, and its Augment makes room, as at Submit.
      using (var shape = new Source().SetShape(n, 0, 0, channels)) transform.CheckLengths(shape);
    }
    Batch batch = gather();
    batch.KeepAlive = context;
    if (transform != null) transform.AugmentCalled(batch);
    return batch;
  }

  /// <summary>e.g. "Dataset(40 of 40 samples, 32 x 32 x 3 Nhwc, 122880 bytes on Cpu, Replica rank 0 of 1)".</summary>
  public override string ToString() {
    if (swigCPtr.Handle == IntPtr.Zero) return "Dataset(disposed)";
    try {
      using (DatasetInfo i = Info()) {
        return "Dataset(" + i.Count + " of " + i.SourceCount + " samples, " + (i.VariableSizes != 0 ? "up to " : "") +
               i.H + " x " + i.W + " x " + i.C + " " + i.Layout + ", " + i.Bytes + " bytes on " + i.DeviceKind + ", " +
               i.Placement + " rank " + i.Rank + " of " + i.WorldSize + ")";
      }
    } catch (InvalidHandleException) {
      return "Dataset(destroyed with its context)";
    }
  }
}

}
